import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import type { OutboxEntry } from "../agent-intent/outbox.ts";
import { createFileOutbox } from "./file-outbox.ts";

const directory = mkdtempSync(join(tmpdir(), "deliberate-file-outbox-"));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

function entryFor(id: string, queuedAt: string): OutboxEntry {
  return {
    id,
    kind: "agent_intent_async",
    request: {
      goal_text: `goal of ${id}`,
      callback_url: "http://127.0.0.1:1/cb",
      correlation_id: id,
    } as OutboxEntry["request"],
    queuedAt,
    attempts: 1,
    state: "queued",
    nextAttemptAt: queuedAt,
    lastError: null,
  };
}

describe("the file outbox", () => {
  it("keeps any correlation id (slashes, dots, unicode, 200 characters) under a safe file name, and gives it back", async () => {
    let round = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(fc.string({ minLength: 1, maxLength: 200, unit: "grapheme" }), { minLength: 1, maxLength: 5 }),
        async (ids) => {
          const store = createFileOutbox({ directory: join(directory, `round-${round++}`) });
          const entries = ids.map((id, index) =>
            entryFor(id, new Date(Date.UTC(2026, 0, 1, 0, 0, index)).toISOString()),
          );
          for (const entry of entries) await store.put(entry);
          expect(await store.list()).toEqual(entries);
          for (const entry of entries) expect(await store.get(entry.id)).toEqual(entry);
          for (const file of readdirSync(store.directory)) expect(file).toMatch(/^[0-9a-f]{64}\.json$/);
          for (const entry of entries) await store.delete(entry.id);
          expect(await store.list()).toEqual([]);
        },
      ),
      { numRuns: 25 },
    );
  });

  it("sets aside a file that is not an outbox entry (kept as .corrupt), never sending it, without blocking the others", async () => {
    const store = createFileOutbox({ directory: join(directory, "foreign") });
    await store.put(entryFor("x", new Date().toISOString()));
    const { writeFileSync } = await import("node:fs");
    writeFileSync(join(store.directory, `${"0".repeat(64)}.json`), JSON.stringify({ hello: "world" }));
    expect((await store.list()).map((entry) => entry.id)).toEqual(["x"]);
    expect(readdirSync(store.directory).filter((file) => file.endsWith(".corrupt"))).toEqual([
      `${"0".repeat(64)}.json.corrupt`,
    ]);
  });
});
