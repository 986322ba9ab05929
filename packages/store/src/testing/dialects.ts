import type { DialectName } from "../dialect.ts";

/** The dialects a `DELIBERATE_TEST_DIALECTS` value selects (both when unset or empty); throws on unknown names. */
export function selectedDialects(setting: string | undefined): DialectName[] {
  const value = setting?.trim();
  if (value === undefined || value === "") return ["sqlite", "postgres"];
  const names = value.split(",").map((name) => name.trim().toLowerCase());
  const unknown = names.filter((name) => name !== "sqlite" && name !== "postgres");
  if (unknown.length > 0)
    throw new Error(`DELIBERATE_TEST_DIALECTS lists unknown dialects: ${unknown.join(", ")} (use sqlite, postgres)`);
  return names as DialectName[];
}

/**
 * The dialects every store test runs on: both by default;
 * `DELIBERATE_TEST_DIALECTS=sqlite` (or `postgres`) narrows a local run.
 */
export const testDialects: readonly DialectName[] = selectedDialects(process.env["DELIBERATE_TEST_DIALECTS"]);
