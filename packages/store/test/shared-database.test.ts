import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runContention } from "./support/contention.ts";

const directory = mkdtempSync(join(tmpdir(), "deliberate-shared-"));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

describe("several processes on one database file", () => {
  it("run concurrent read-then-write transactions with no 'database is locked' and no lost update", async () => {
    const result = await runContention({ directory, processes: 3, durationMs: 3000, dialect: "immediate" });
    expect(result.firstError).toBeUndefined();
    expect(result.locked).toBe(0);
    expect(result.otherErrors).toBe(0);
    expect(result.committed).toBeGreaterThan(0);
    // Every committed read-then-write increment is kept: no two transactions read the same value.
    expect(result.counter).toBe(result.committed);
    expect(result.events).toBe(result.committed);
  }, 60_000);
});
