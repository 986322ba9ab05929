import { toDeliberateError } from "@deliberate/base";
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { createCallScope, openStore, type Store } from "../src/index.ts";
import { freshTestDatabase, testDialects } from "../src/testing/index.ts";

// Values a caller controls, inlined as literals into a call's one round trip (postgres-write-batch.ts):
// each must land exactly as sent (U+0000 as U+FFFD, as on every path), and none may run SQL of its own.

/** `String.prototype.toWellFormed` (ES2024, not in this project's TypeScript lib): each lone surrogate as U+FFFD. */
const wellFormed = (text: string): string =>
  text.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, "\uFFFD");

const now = "2026-11-27T10:00:00.000Z";
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function freshStore(): Promise<Store> {
  const store = await openStore(await freshTestDatabase("postgres"));
  cleanups.push(() => store.close());
  return store;
}

const hostile = [
  "it's",
  "back\\slash",
  "\\'; drop table thoughts; --",
  "'); delete from sessions; --",
  "E'\\x41'",
  "$1 $2 $$ $tag$ x $tag$",
  "/* open comment",
  "-- comment\n'",
  "tab\tnew\nline\rcr",
  "\\\\\\",
  "\\",
  "'",
  "''",
  "\\x00ff",
  "emoji 😀 and \u00e9 and \u200b",
  "x".repeat(200_000) + "'\\",
  ";",
  "\\E'",
];

describe.skipIf(!testDialects.includes("postgres"))("inlined literals on Postgres", () => {
  it("store every hostile text exactly as sent, as content, metadata, mode and ids", async () => {
    const store = await freshStore();
    for (const [index, text] of hostile.entries()) {
      const session = `ses_${index}_${text.slice(0, 40)}`;
      const scope = createCallScope(store);
      await scope.store.transaction(async (repositories) => {
        await repositories.sessions.create({ id: session, mode: text, now });
        await repositories.sessions.touch({ id: session, now });
        await repositories.sessions.setActiveBranch({ id: session, branchId: text, now });
        await repositories.thoughts.append({
          id: `th_${index}_${text.slice(0, 40)}`,
          session_id: session,
          mode: text,
          content: text,
          confidence: 0.5,
          metadata: { text, list: [text, { nested: text }] },
          created_at: now,
        });
      });
      await scope.commit();
      const [thought] = await store.thoughts.listBySession(session);
      expect(thought?.content).toBe(text);
      expect(thought?.mode).toBe(text);
      expect(thought?.metadata).toEqual({ text, list: [text, { nested: text }] });
      expect((await store.sessions.get(session)).mode).toBe(text);
    }
    const count = await store.db
      .selectFrom("thoughts")
      .select((b) => b.fn.countAll().as("n"))
      .executeTakeFirst();
    expect(Number(count?.n)).toBe(hostile.length);
  });

  it("store any text, with quotes, backslashes and SQL's own punctuation mixed in, exactly as sent (property)", async () => {
    const store = await freshStore();
    const sqlish = fc.constantFrom("'", "\\", "$1", "$$", ";", "--", "/*", "*/", "E'", '"', "\n");
    const text = fc
      .array(fc.oneof(fc.string({ unit: "binary" }), sqlish), { maxLength: 12 })
      .map((parts) => parts.join("").replaceAll("\0", ""));
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        text,
        fc.option(fc.double({ noNaN: true, noDefaultInfinity: true, min: 0, max: 1 })),
        async (content, confidence) => {
          run += 1;
          const session = `ses_p${run}`;
          const scope = createCallScope(store);
          await scope.store.transaction(async (repositories) => {
            await repositories.sessions.create({ id: session, mode: content, now });
            await repositories.thoughts.append({
              id: `th_p${run}`,
              session_id: session,
              mode: "m",
              content,
              confidence: confidence ?? undefined,
              metadata: { content },
              created_at: now,
            });
          });
          await scope.commit();
          const [thought] = await store.thoughts.listBySession(session);
          // Lone surrogates are not text in UTF-8: they arrive as U+FFFD on every path (a bound parameter too).
          const expected = wellFormed(content);
          expect(thought?.content).toBe(expected);
          expect(thought?.confidence ?? null).toBe(confidence ?? null);
          expect((await store.sessions.get(session)).mode).toBe(expected);
        },
      ),
      { numRuns: 60 },
    );
  });

  it("fail a call at its commit with the error (code and mapping) the statement gives when run alone, leaving nothing", async () => {
    const store = await freshStore();
    const orphan = { id: "th_orphan", session_id: "ses_missing", mode: "m", content: "x", created_at: now };
    const alone = await store.thoughts.append(orphan).catch((error: unknown) => error);
    expect((alone as { code?: string }).code).toBe("23503");
    const scope = createCallScope(store);
    await scope.store.transaction(async (repositories) => {
      await repositories.sessions.create({ id: "ses_kept", mode: "m", now });
      await repositories.thoughts.append(orphan);
    });
    const atCommit = await scope.commit().catch((error: unknown) => error);
    await scope.rollback();
    expect((atCommit as { code?: string }).code).toBe("23503");
    expect(toDeliberateError(atCommit)).toMatchObject({
      code: toDeliberateError(alone).code,
      retryable: toDeliberateError(alone).retryable,
    });
    expect(await store.sessions.find("ses_kept")).toBeUndefined();
  });

  it("store U+0000 as U+FFFD and a lone surrogate as U+FFFD, as a bound parameter does", async () => {
    const store = await freshStore();
    const scope = createCallScope(store);
    await scope.store.transaction(async (repositories) => {
      await repositories.sessions.create({ id: "ses_nul", mode: "m", now });
      await repositories.thoughts.append({
        id: "th_nul",
        session_id: "ses_nul",
        mode: "m",
        content: "a\0b\uD800c'",
        metadata: {},
        created_at: now,
      });
    });
    await scope.commit();
    const [thought] = await store.thoughts.listBySession("ses_nul");
    expect(thought?.content).toBe("a\uFFFDb\uFFFDc'");
  });
});
