import { defineTool } from "@deliberate/contracts";
import { DeliberateError } from "@deliberate/base";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineModule, defineHandler, runMode, defineMode } from "./index.ts";
import { createTestEngine } from "./testing.ts";

const writeTool = defineTool({
  name: "test_write_then_fail",
  description: "Writes a session and two thoughts in two transactions, then fails the way it is told to.",
  inputSchema: z.object({ fail: z.enum(["none", "throw", "bad_output", "after_model"]) }),
  outputSchema: z.object({ session_id: z.string(), total: z.number() }),
  annotations: {
    title: "Write then fail",
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: false,
    openWorldHint: false,
  },
  operations: [],
  usesModel: true,
});

const noteMode = defineMode({
  mode: "rollback_note",
  name: "note",
  description: "A note",
  system: "Notes.",
  prompt: () => "Note?",
  output: z.object({ note: z.string() }),
});

const module = defineModule({
  name: "rollback-test",
  tools: [
    defineHandler(writeTool, async (input, context) => {
      const sessionId = context.ids.next("s");
      const now = context.clock.now().toISOString();
      const thoughts = context.store.thoughts; // taken before the call's transaction opens
      await context.store.transaction((repositories) =>
        repositories.sessions.create({ id: sessionId, mode: "test", now }).then(() => undefined),
      );
      await thoughts.append({
        id: context.ids.next("th"),
        session_id: sessionId,
        branch_id: null,
        parent_id: null,
        mode: "test",
        content: "first",
        created_at: now,
      });
      if (input.fail === "after_model") {
        await runMode(context, noteMode, {});
        await context.store.transaction((repositories) =>
          repositories.thoughts
            .append({
              id: context.ids.next("th"),
              session_id: sessionId,
              branch_id: null,
              parent_id: null,
              mode: "test",
              content: "after model",
              created_at: now,
            })
            .then(() => undefined),
        );
        throw new DeliberateError({ code: "INTERNAL", message: "failed after the model call" });
      }
      await context.store.transaction((repositories) =>
        repositories.thoughts
          .append({
            id: context.ids.next("th"),
            session_id: sessionId,
            branch_id: null,
            parent_id: null,
            mode: "test",
            content: "second",
            created_at: now,
          })
          .then(() => undefined),
      );
      if (input.fail === "throw") throw new Error("boom");
      return { session_id: sessionId, total: input.fail === "bad_output" ? Number.NaN : 1 };
    }),
  ],
  modes: { rollback_note: { temperature: 0, maxTokens: 100 } },
});

async function counts(store: Awaited<ReturnType<typeof createTestEngine>>["store"]) {
  const sessions = await store.db
    .selectFrom("sessions")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .executeTakeFirstOrThrow();
  const thoughts = await store.db
    .selectFrom("thoughts")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .executeTakeFirstOrThrow();
  const invocations = await store.invocations.list({});
  return {
    sessions: Number(sessions.n),
    thoughts: Number(thoughts.n),
    invocations: invocations.map((row) => [row.success, row.error_code]),
  };
}

describe("a failed call writes nothing but its invocation row", () => {
  it("commits every write of a successful call", async () => {
    const { engine, store } = await createTestEngine(() => ({ note: "n" }), { modules: [module] });
    await engine.invoke("test_write_then_fail", { fail: "none" });
    expect(await counts(store)).toEqual({ sessions: 1, thoughts: 2, invocations: [[true, null]] });
    await store.close();
  });

  it.each(["throw", "bad_output"] as const)(
    "rolls back the session and thoughts when the handler fails (%s)",
    async (fail) => {
      const { engine, store } = await createTestEngine(() => ({ note: "n" }), { modules: [module] });
      await expect(engine.invoke("test_write_then_fail", { fail })).rejects.toMatchObject({ code: "INTERNAL" });
      expect(await counts(store)).toEqual({ sessions: 0, thoughts: 0, invocations: [[false, "INTERNAL"]] });
      // The store is usable afterwards (no transaction left open).
      await engine.invoke("test_write_then_fail", { fail: "none" });
      expect((await counts(store)).sessions).toBe(1);
      await store.close();
    },
  );

  it("commits before a model call (no transaction is held while a model answers) and rolls back only what followed", async () => {
    const { engine, store } = await createTestEngine(() => ({ note: "n" }), { modules: [module] });
    await expect(engine.invoke("test_write_then_fail", { fail: "after_model" })).rejects.toMatchObject({
      code: "INTERNAL",
    });
    expect(await counts(store)).toEqual({ sessions: 1, thoughts: 1, invocations: [[false, "INTERNAL"]] });
    await store.close();
  });
});
