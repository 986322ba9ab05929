import {
  createHostContext,
  expandNeedsCompletion,
  type NeedsCompletion,
  needsCompletionSchema,
  type PendingPrompt,
} from "@deliberate/contracts";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compactStep, sentBlocksOf } from "./compact-step.ts";

/** Texts drawn from a small pool, so prompts share paragraphs, systems and schemas as real steps do. */
const pieces = [
  "Problem: the cache misses at noon",
  "",
  "Step 1 [input]: a\n\nb",
  "x",
  "Earlier reasoning\n",
  "\n",
  "Ünïcødé ✓ \u2028",
  "{{context.c1}}",
];
const textArbitrary = fc
  .array(fc.constantFrom(...pieces), { minLength: 1, maxLength: 5 })
  .map((parts) => parts.join("\n\n"));
const schemaArbitrary = fc.constantFrom<Record<string, unknown>>(
  { type: "string" },
  { type: "object", properties: { a: { type: "number" } }, required: ["a"] },
  { type: "object" },
);
const promptArbitrary = fc.record({
  name: fc.constantFrom("linear_continuation", "divergent_perspective"),
  system: textArbitrary,
  user: textArbitrary,
  schema: schemaArbitrary,
});
const callArbitrary = fc.array(fc.array(promptArbitrary, { minLength: 1, maxLength: 4 }), {
  minLength: 1,
  maxLength: 5,
});

/** The steps of a call as the engine sends them: prompts numbered across rounds, blocks sent once per call. */
function compactCall(rounds: ReadonlyArray<ReadonlyArray<Omit<PendingPrompt, "id">>>): {
  steps: NeedsCompletion[];
  full: PendingPrompt[][];
} {
  const numbered = rounds.flat().map((prompt, index) => ({ id: `p${index + 1}-k${index + 1}`, ...prompt }));
  const full = rounds.map((round, index) =>
    numbered.slice(rounds.slice(0, index).flat().length).slice(0, round.length),
  );
  const steps = full.map((prompts, index) => {
    const compact = compactStep(prompts, sentBlocksOf(full.slice(0, index).flat()));
    return needsCompletionSchema.parse({
      status: "needs_completion",
      resume_token: "rt_1",
      tool: "t",
      ...compact,
      instructions: "i",
      expires_at: "2026-01-01T00:00:00.000Z",
    });
  });
  return { steps, full };
}

describe("compact steps", () => {
  it("give back every prompt of every step exactly, from the step and what earlier steps of the call sent", () => {
    fc.assert(
      fc.property(callArbitrary, (rounds) => {
        const { steps, full } = compactCall(rounds);
        const known = createHostContext();
        steps.forEach((step, index) => expect(expandNeedsCompletion(step, known)).toEqual(full[index]));
      }),
    );
  });

  it("send each block once per call: never one an earlier step sent, never one twice in a step", () => {
    fc.assert(
      fc.property(callArbitrary, (rounds) => {
        const { steps } = compactCall(rounds);
        const sentTexts = new Set<string>();
        const sentSchemas = new Set<string>();
        for (const step of steps) {
          for (const [id, text] of Object.entries(step.context ?? {})) {
            expect(sentTexts.has(text)).toBe(false);
            expect(id).toMatch(/^c[0-9a-f]{8}$/);
            sentTexts.add(text);
          }
          for (const schema of Object.values(step.schemas ?? {})) {
            expect(sentSchemas.has(JSON.stringify(schema))).toBe(false);
            sentSchemas.add(JSON.stringify(schema));
          }
        }
      }),
    );
  });

  it("name a block missing from the host's context, with the way to get it again", () => {
    const { steps } = compactCall([
      [{ name: "a", system: "You answer.", user: "Problem: one", schema: { type: "string" } }],
      [{ name: "b", system: "You answer.", user: "Problem: one\n\nNext", schema: { type: "string" } }],
    ]);
    const second = steps[1] as NeedsCompletion;
    expect(Object.values(second.context ?? {})).toEqual(["Next"]);
    let thrown: unknown;
    try {
      expandNeedsCompletion(second);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toMatchObject({ code: "INVALID_INPUT", hint: expect.stringContaining("resend: true") });
    expect((thrown as Error).message).toMatch(
      /names block '[cs][0-9a-f]{8}', which neither this step nor an earlier step/,
    );
  });

  it("share one block among the prompts of a step that use it", () => {
    const shared = "Earlier reasoning in this session, oldest first: a long history";
    const prompts = ["north", "south", "east"].map((lens, index) => ({
      id: `p${index}`,
      name: "divergent_perspective",
      system: "You generate one perspective.",
      user: `${shared}\n\nYour lens: ${lens}`,
      schema: { type: "object" },
    }));
    const step = compactStep(prompts, sentBlocksOf([]));
    expect(Object.values(step.context).filter((text) => text === shared)).toHaveLength(1);
    expect(Object.values(step.context).filter((text) => text === "You generate one perspective.")).toHaveLength(1);
    expect(Object.keys(step.schemas)).toHaveLength(1);
    expect(new Set(step.prompts.map((prompt) => prompt.user_refs[0])).size).toBe(1);
  });
});
