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

/**
 * Assigns ids to the contents of one kind: 10 hex digits of the content's
 * digest, the whole digest when two contents of the step share those 10 (a
 * lengthened id is always sent, since an earlier step may have sent the
 * content under its short id).
 */
function createIdAssigner(prefix: string) {
  const contentById = new Map<string, string>();
  const idByContent = new Map<string, { id: string; lengthened: boolean }>();
  return (content: string): { id: string; lengthened: boolean } => {
    const assigned = idByContent.get(content);
    if (assigned !== undefined) return assigned;
    const digest = digestOf(content);
    const short = `${prefix}${digest.slice(0, 10)}`;
    const taken = contentById.get(short);
    const entry = taken === undefined || taken === content ? { id: short, lengthened: false } : { id: `${prefix}${digest}`, lengthened: true };
    contentById.set(entry.id, content);
    idByContent.set(content, entry);
    return entry;
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
  const textId = createIdAssigner("c");
  const schemaId = createIdAssigner("s");
  const context: Record<string, string> = {};
  const schemas: Record<string, Record<string, unknown>> = {};
  const useText = (text: string): string => {
    const { id, lengthened } = textId(text);
    if (lengthened || !sent.texts.has(text)) context[id] = text;
    return id;
  };
  const compacted = prompts.map((prompt): CompactPendingPrompt => {
    const blocks = blocksOf(prompt);
    const { id: schemaRef, lengthened } = schemaId(blocks.schema);
    if (lengthened || !sent.schemas.has(blocks.schema)) schemas[schemaRef] = prompt.schema;
    const [system, ...user] = blocks.texts as [string, ...string[]];
    return { id: prompt.id, name: prompt.name, system_ref: useText(system), user_refs: user.map(useText), schema_ref: schemaRef };
  });
  return { prompts: compacted, context, schemas };
}
