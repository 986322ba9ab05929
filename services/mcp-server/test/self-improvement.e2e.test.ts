import { join } from "node:path";
import { needsCompletionSchema } from "@deliberate/contracts";
import { createSelfImprovementModule, type SelfImprovementRepositories } from "@deliberate/self-improvement";
import { testStorePlace } from "@deliberate/engine/testing";
import { openStore, type Store } from "@deliberate/store";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startStdioServer, temporaryDirectory, type StdioServer } from "./support/server-process.ts";

/** Polls `check` until it returns a value or the time runs out. */
async function eventually<T>(check: () => Promise<T | undefined>, what: string, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe("the built MCP server runs the self-improvement loop", () => {
  const directory = temporaryDirectory();
  const databasePath = join(directory.path, "loop.db");
  let server: StdioServer;
  let store: Store<SelfImprovementRepositories>;
  const module = createSelfImprovementModule();

  beforeAll(async () => {
    server = await startStdioServer({ DATABASE_PATH: databasePath, DELIBERATE_SELF_IMPROVEMENT_CYCLE_MS: "200" });
    store = await openStore<SelfImprovementRepositories>({
      ...(await testStorePlace(databasePath)),
      modules: [module],
    });
  });
  afterAll(async () => {
    await server?.close();
    await store?.close();
    directory.remove();
  });

  it("cycles on its configured interval under the leader lease, learns each tool's modes, and releases the lease on exit", async () => {
    const step = needsCompletionSchema.parse(
      (await server.client.callTool({ name: "reasoning_linear", arguments: { content: "Is 91 prime?" } }))
        .structuredContent,
    );
    const answer = { content: "91 = 7 x 13.", confidence: 0.9, next_step: "Conclude." };
    const done = await server.client.callTool({
      name: "reasoning_submit",
      arguments: { resume_token: step.resume_token, answers: [{ prompt_id: step.prompts[0]?.id, answer }] },
    });
    expect(done.isError).toBeFalsy();

    const control = module.control(store);
    const status = await eventually(async () => {
      const current = await control.status();
      const modes = await store.selfImprovement.toolModes.all();
      return current.last_cycle !== null && modes.get("reasoning_linear") ? current : undefined;
    }, "a cycle that recorded reasoning_linear's mode");
    expect(status.leader).toMatchObject({ live: true });
    expect(status.last_cycle).toMatchObject({
      outcome: "blocked",
      reason: "no triggers: every tool is within its baseline",
    });
    expect((await store.selfImprovement.toolModes.all()).get("reasoning_linear")).toEqual(["linear"]);

    await server.close();
    await eventually(
      async () => ((await control.status()).leader === null ? true : undefined),
      "the lease to be released",
    );
  });
});
