import { z } from "zod";
import { looseInteger } from "./coerce.ts";
import { lazySchema } from "./lazy-schema.ts";

/** Items per list a session read returns when no `limit` is given. */
export const defaultSessionPageSize = 100;
/** The largest `limit` a session read accepts. */
export const maxSessionPageSize = 1000;

/** `?limit&offset` of a session read (REST query, resource URI query). */
export const sessionPageQuerySchema = lazySchema(() =>
  z.object({
    limit: looseInteger({ min: 1, max: maxSessionPageSize })
      .default(defaultSessionPageSize)
      .describe(
        `Items per list (thoughts, branches, checkpoints, graph nodes and edges, timelines, search nodes, knowledge-graph entities and relations); default ${defaultSessionPageSize}, at most ${maxSessionPageSize}`,
      ),
    offset: looseInteger({ min: 0 }).default(0).describe("Items to skip in each list (0 = from the start)"),
  }),
);
export type SessionPageQuery = z.output<typeof sessionPageQuerySchema>;

/** Where a windowed session read stands. */
export const sessionPageSchema = lazySchema(() =>
  z
    .object({
      offset: z.number().int(),
      limit: z.number().int(),
      totals: z
        .record(z.string(), z.number().int())
        .describe('Items in each list in total, e.g. thoughts: 5000, "graph.nodes": 40'),
      next_offset: z
        .number()
        .int()
        .nullable()
        .describe("The offset of the next page; null when every list ends within this one"),
    })
    .meta({ title: "SessionPage" }),
);
export type SessionPage = z.infer<typeof sessionPageSchema>;

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === "object" && !Array.isArray(value);

/**
 * One page of a session record: every list in it (top-level arrays such as
 * `thoughts`, and arrays one level down such as `graph.nodes`) cut to the same
 * window `[offset, offset + limit)`, plus `page` with each list's total and the
 * next offset. Lists shorter than the offset come back empty.
 *
 * @example
 * pageSessionRecord({ session, thoughts: fiveThousand }, { offset: 100, limit: 10 })
 * // thoughts 100..109, page: { offset: 100, limit: 10, totals: { thoughts: 5000 }, next_offset: 110 }
 */
export function pageSessionRecord<R extends object>(record: R, window: SessionPageQuery): R & { page: SessionPage } {
  const totals: Record<string, number> = {};
  const end = window.offset + window.limit;
  const cut = (name: string, list: unknown[]) => {
    totals[name] = list.length;
    return list.slice(window.offset, end);
  };
  const paged: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(record)) {
    if (Array.isArray(value)) paged[key] = cut(key, value);
    else if (isPlainObject(value) && key !== "session") {
      paged[key] = Object.fromEntries(
        Object.entries(value).map(([inner, item]) => [
          inner,
          Array.isArray(item) ? cut(`${key}.${inner}`, item) : item,
        ]),
      );
    } else paged[key] = value;
  }
  const more = Object.values(totals).some((total) => total > end);
  return {
    ...(paged as R),
    page: { offset: window.offset, limit: window.limit, totals, next_offset: more ? end : null },
  };
}
