import { createHash } from "node:crypto";
import type { CompactPendingPrompt, PendingPrompt } from "@deliberate/contracts";

/** A step's prompts in the compact form, and the blocks they use that the host has not been sent yet. */
export interface CompactStep {
  prompts: CompactPendingPrompt[];
  context: Record<string, string>;
  schemas: Record<string, Record<string, unknown>>;
}

/** What the host already holds from earlier steps of the call: block texts and schemas (as JSON text). */
export interface SentBlocks {
  texts: ReadonlySet<string>;
  schemas: ReadonlySet<string>;
}

/** A block's id: its kind and a digest of its content, so one text has one id in every step of a call. */
function digestOf(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

/** The blocks of one prompt: the system text, the user text's paragraphs, the answer's schema. */
function blocksOf(prompt: PendingPrompt): { texts: string[]; schema: string } {
  return { texts: [prompt.system, ...prompt.user.split("\n\n")], schema: JSON.stringify(prompt.schema) };
}

/** Everything a host was sent when it was sent these prompts (in whichever form). */
export function sentBlocksOf(prompts: readonly PendingPrompt[]): SentBlocks {
  const texts = new Set<string>();
  const schemas = new Set<string>();
  for (const prompt of prompts) {
    const blocks = blocksOf(prompt);
    for (const text of blocks.texts) texts.add(text);
    schemas.add(blocks.schema);
  }
  return { texts, schemas };
}

const shortDigits = 8;

/**
 * Ids for the contents of one kind: `shortDigits` hex digits of the content's
 * digest, or the whole digest for contents whose short id another content
 * among everything the call has sent or sends now shares. The universe only
 * grows from step to step, so a short id always names the one content it
 * named in earlier steps; a long id may be new, and its block is always sent.
 */
function createIdAssigner(prefix: string, contents: Iterable<string>) {
  const shortIds = new Map<string, Set<string>>();
  const shortOf = (content: string) => `${prefix}${digestOf(content).slice(0, shortDigits)}`;
  for (const content of contents) {
    const id = shortOf(content);
    shortIds.set(id, (shortIds.get(id) ?? new Set()).add(content));
  }
  return (content: string): { id: string; lengthened: boolean } => {
    const id = shortOf(content);
    const sharing = shortIds.get(id);
    return sharing !== undefined && sharing.size > 1
      ? { id: `${prefix}${digestOf(content)}`, lengthened: true }
      : { id, lengthened: false };
  };
}

/**
 * The compact form of a step: every prompt's system text, user paragraphs and
 * answer schema become blocks named by id; the step carries each block once,
 * however many of its prompts use it, and not at all when an earlier step of
 * the call sent it (`sent`). Joining a prompt's user blocks with a blank line
 * gives its user text back exactly.
 */
export function compactStep(prompts: readonly PendingPrompt[], sent: SentBlocks): CompactStep {
  const blocks = prompts.map(blocksOf);
  const textId = createIdAssigner("c", new Set([...sent.texts, ...blocks.flatMap((block) => block.texts)]));
  const schemaId = createIdAssigner("s", new Set([...sent.schemas, ...blocks.map((block) => block.schema)]));
  const context: Record<string, string> = {};
  const schemas: Record<string, Record<string, unknown>> = {};
  const useText = (text: string): string => {
    const { id, lengthened } = textId(text);
    if (lengthened || !sent.texts.has(text)) context[id] = text;
    return id;
  };
  const compacted = prompts.map((prompt, index): CompactPendingPrompt => {
    const { texts, schema } = blocks[index] as { texts: string[]; schema: string };
    const { id: schemaRef, lengthened } = schemaId(schema);
    if (lengthened || !sent.schemas.has(schema)) schemas[schemaRef] = prompt.schema;
    const [system, ...user] = texts as [string, ...string[]];
    return {
      id: prompt.id,
      name: prompt.name,
      system_ref: useText(system),
      user_refs: user.map(useText),
      schema_ref: schemaRef,
    };
  });
  return { prompts: compacted, context, schemas };
}
