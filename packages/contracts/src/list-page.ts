import { z } from "zod";
import { looseInteger } from "./coerce.ts";
import { defaultSessionPageSize, maxSessionPageSize } from "./session-page.ts";
import { lazySchema } from "./lazy-schema.ts";

/**
 * `limit` / `offset` of a tool that returns a list which grows with the session (checkpoints, a timeline's
 * branches, a graph's nodes), paged the way session reads are (`session-page.ts`): at most
 * `maxSessionPageSize` items per call, `page.next_offset` says where the next page starts.
 */
export function listPageInput(what: string, defaultLimit = defaultSessionPageSize) {
  return {
    limit: looseInteger({ min: 1, max: maxSessionPageSize })
      .optional()
      .describe(`${what}: items per page; default ${defaultLimit}, at most ${maxSessionPageSize}`),
    offset: looseInteger({ min: 0 })
      .optional()
      .describe(`${what}: items to skip (0 = from the start; send page.next_offset for the next page)`),
  };
}

/** Where a paged list stands: its window, its total, and the next page's offset (null after the last). */
export const listPageSchema = lazySchema(() =>
  z
    .object({
      offset: z.number().int(),
      limit: z.number().int(),
      total: z.number().int().describe("Items in the whole list"),
      next_offset: z
        .number()
        .int()
        .nullable()
        .describe("The offset of the next page; null when this page reaches the end"),
    })
    .meta({ title: "ListPage" }),
);
export type ListPage = z.infer<typeof listPageSchema>;

/** The window a call asked for (defaults applied). */
export function listWindow(
  input: { limit?: number | undefined; offset?: number | undefined },
  defaultLimit = defaultSessionPageSize,
): { offset: number; limit: number } {
  return { offset: input.offset ?? 0, limit: input.limit ?? defaultLimit };
}

/** The page of `window` in a list of `total` items. */
export function listPage(window: { offset: number; limit: number }, total: number): ListPage {
  const end = window.offset + window.limit;
  return { offset: window.offset, limit: window.limit, total, next_offset: total > end ? end : null };
}
