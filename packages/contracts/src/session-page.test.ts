import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { defaultSessionPageSize, pageSessionRecord, sessionPageQuerySchema } from "./session-page.ts";

describe("pageSessionRecord", () => {
  it("cuts every list to the window and reports totals and the next offset", () => {
    const record = {
      session: { id: "s1", tags: ["kept whole"] },
      thoughts: Array.from({ length: 25 }, (_, index) => ({ n: index })),
      branches: [{ id: "b1" }],
      graph: { graph: { id: "g" }, nodes: Array.from({ length: 12 }, (_, index) => index), edges: [] as number[] },
    };
    const page = pageSessionRecord(record, { offset: 10, limit: 5 });
    expect(page.thoughts.map((thought) => thought.n)).toEqual([10, 11, 12, 13, 14]);
    expect(page.branches).toEqual([]);
    expect(page.graph.nodes).toEqual([10, 11]);
    expect(page.graph.graph).toEqual({ id: "g" });
    expect(page.session).toEqual(record.session);
    expect(page.page).toEqual({
      offset: 10,
      limit: 5,
      totals: { thoughts: 25, branches: 1, "graph.nodes": 12, "graph.edges": 0 },
      next_offset: 15,
    });
    expect(pageSessionRecord(record, { offset: 20, limit: 5 }).page.next_offset).toBeNull();
  });

  it("walking next_offset returns every item exactly once", () => {
    fc.assert(
      fc.property(
        fc.nat({ max: 300 }),
        fc.nat({ max: 40 }),
        fc.integer({ min: 1, max: 50 }),
        (thoughts, nodes, limit) => {
          const record = {
            thoughts: Array.from({ length: thoughts }, (_, index) => index),
            graph: { nodes: Array.from({ length: nodes }, (_, index) => index) },
          };
          const seen: number[] = [];
          const seenNodes: number[] = [];
          let offset: number | null = 0;
          while (offset !== null) {
            const current: { thoughts: number[]; graph: { nodes: number[] }; page: { next_offset: number | null } } =
              pageSessionRecord(record, { offset, limit });
            seen.push(...current.thoughts);
            seenNodes.push(...current.graph.nodes);
            offset = current.page.next_offset;
          }
          expect(seen).toEqual(record.thoughts);
          expect(seenNodes).toEqual(record.graph.nodes);
        },
      ),
    );
  });

  it("reads limit and offset from strings, with a default page size", () => {
    expect(sessionPageQuerySchema.parse({})).toEqual({ limit: defaultSessionPageSize, offset: 0 });
    expect(sessionPageQuerySchema.parse({ limit: "10", offset: "100" })).toEqual({ limit: 10, offset: 100 });
    expect(sessionPageQuerySchema.safeParse({ limit: "0" }).success).toBe(false);
    expect(sessionPageQuerySchema.safeParse({ limit: "1001" }).success).toBe(false);
    expect(sessionPageQuerySchema.safeParse({ offset: "-1" }).success).toBe(false);
  });
});
