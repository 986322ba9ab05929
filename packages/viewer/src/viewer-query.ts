import { nulCharacterMessage } from "@deliberate/contracts";
import type { ViewerSessionQuery } from "./viewer-data.ts";
import { invalidInput, problem } from "./viewer-responses.ts";

/** A `?name=` integer from 0 to `max` (the fallback when absent), or the 400 naming it. */
export function integerParameter(url: URL, name: string, fallback: number, max: number): number | Response {
  const raw = url.searchParams.get(name);
  if (raw === null || raw === "") return fallback;
  const value = /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isSafeInteger(value) || value > max)
    return problem(400, "INVALID_INPUT", `${name} must be an integer from 0 to ${max}`);
  return value;
}

/** The list page's `?limit&offset&tool&kind&search`, or the 400 naming the bad one. */
export function parseQuery(url: URL, pageSize: number): ViewerSessionQuery | Response {
  const limit = integerParameter(url, "limit", pageSize, 200);
  if (limit instanceof Response) return limit;
  const offset = integerParameter(url, "offset", 0, 1_000_000);
  if (offset instanceof Response) return offset;
  for (const name of ["tool", "kind", "search"]) {
    if (url.searchParams.get(name)?.includes("\0")) return invalidInput(name, nulCharacterMessage);
  }
  const text = (name: string) => {
    const value = url.searchParams.get(name)?.trim();
    return value === undefined || value === "" ? undefined : value.slice(0, 200);
  };
  const tool = text("tool");
  const kind = text("kind");
  const search = text("search");
  return {
    limit: Math.max(1, limit),
    offset,
    ...(tool ? { tool } : {}),
    ...(kind ? { kind } : {}),
    ...(search ? { search } : {}),
  };
}
