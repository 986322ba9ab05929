import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { openStore } from "./index.ts";

const now = "2026-11-22T10:00:00.000Z";

describe("thoughts.listBySession", () => {
  it("reads every thought exactly as stored, in order (any text, numbers, metadata, status)", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            content: fc.string({ unit: "grapheme", maxLength: 40 }),
            confidence: fc.option(fc.double({ min: 0, max: 1, noNaN: true }), { nil: null }),
            metadata: fc.dictionary(
              fc.string({ maxLength: 5 }),
              fc.oneof(fc.string({ maxLength: 8 }), fc.integer(), fc.boolean(), fc.constant(null)),
            ),
            superseded: fc.boolean(),
          }),
          { maxLength: 20 },
        ),
        async (thoughts) => {
          const store = await openStore({ path: ":memory:" });
          try {
            await store.sessions.create({ id: "s1", mode: "linear", now });
            for (const [index, thought] of thoughts.entries()) {
              await store.thoughts.append({
                id: `t${index}`,
                session_id: "s1",
                parent_id: index > 0 ? `t${index - 1}` : null,
                mode: "linear",
                content: thought.content,
                confidence: thought.confidence,
                metadata: thought.metadata,
                created_at: now,
              });
            }
            const superseded = thoughts.flatMap((thought, index) => (thought.superseded ? [`t${index}`] : []));
            const kept = thoughts.flatMap((thought, index) => (thought.superseded ? [] : [`t${index}`]));
            await store.thoughts.supersedeExcept("s1", kept);
            const expected = thoughts.map((thought, index) => ({
              id: `t${index}`,
              session_id: "s1",
              branch_id: null,
              parent_id: index > 0 ? `t${index - 1}` : null,
              mode: "linear",
              content: thought.content,
              confidence: thought.confidence,
              status: superseded.includes(`t${index}`) ? "superseded" : "active",
              metadata: JSON.parse(JSON.stringify(thought.metadata)),
              created_at: now,
            }));
            expect(await store.thoughts.listBySession("s1")).toEqual(expected);
            expect(await store.thoughts.listBySession("s1", { activeOnly: true })).toEqual(
              expected.filter((thought) => thought.status === "active"),
            );
            expect(await store.thoughts.listBySession("missing")).toEqual([]);
          } finally {
            await store.close();
          }
        },
      ),
      { numRuns: 40 },
    );
  });
});
