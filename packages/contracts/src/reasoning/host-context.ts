import { DeliberateError } from "@deliberate/base";
import type { CompactPendingPrompt, NeedsCompletion, PendingPrompt } from "./needs-completion.ts";

/**
 * What a host keeps across the steps of one host-executed call: every text
 * block and answer schema the server sent, by id. A compact step names blocks
 * an earlier step of the same call sent; this is where they are found again.
 */
export interface HostContext {
  readonly context: Map<string, string>;
  readonly schemas: Map<string, Record<string, unknown>>;
}

/** An empty host context, for the first step of a call. */
export function createHostContext(): HostContext {
  return { context: new Map(), schemas: new Map() };
}

function isCompact(prompt: PendingPrompt | CompactPendingPrompt): prompt is CompactPendingPrompt {
  return "user_refs" in prompt;
}

function missingBlock(step: NeedsCompletion, prompt: CompactPendingPrompt, id: string): DeliberateError {
  return new DeliberateError({
    code: "INVALID_INPUT",
    message: `Prompt ${prompt.id} of the ${step.tool} step names block '${id}', which neither this step nor an earlier step of the call (as kept in this host context) sent.`,
    issues: [{ field: `prompts.${prompt.id}`, message: `unknown block ${id}` }],
    hint: `Keep one host context per call across its steps, or call reasoning_submit with { resume_token: "${step.resume_token}", resend: true } to get the step again with every block.`,
  });
}

/**
 * The step's prompts in full (`system`, `user`, `schema`), whichever form the
 * server sent: compact prompts are rebuilt from the step's blocks and the ones
 * earlier steps of the call sent (kept in `known`, which this adds the step's
 * blocks to). Throws INVALID_INPUT naming a block that was never sent.
 */
export function expandNeedsCompletion(
  step: NeedsCompletion,
  known: HostContext = createHostContext(),
): PendingPrompt[] {
  for (const [id, text] of Object.entries(step.context ?? {})) known.context.set(id, text);
  for (const [id, schema] of Object.entries(step.schemas ?? {})) known.schemas.set(id, schema);
  return step.prompts.map((prompt) => {
    if (!isCompact(prompt)) return prompt;
    const text = (id: string): string => {
      const block = known.context.get(id);
      if (block === undefined) throw missingBlock(step, prompt, id);
      return block;
    };
    const schema = known.schemas.get(prompt.schema_ref);
    if (schema === undefined) throw missingBlock(step, prompt, prompt.schema_ref);
    return {
      id: prompt.id,
      name: prompt.name,
      system: text(prompt.system_ref),
      user: prompt.user_refs.map(text).join("\n\n"),
      schema,
    };
  });
}
