import { join } from "node:path";
import { createFakeModelServer, type FakeModelServer } from "@deliberate/providers/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { answerBySchemaName } from "./support/fake-answers.ts";
import {
  coreDefinitions,
  expectOutput,
  startStdioServer,
  temporaryDirectory,
  type StdioServer,
} from "./support/server-process.ts";

// One scenario through the built server over stdio, step by step: every
// operation of every core tool, then a second process on the same database.
describe("stdio: every tool, every operation, against the real SDK client", () => {
  let directory: ReturnType<typeof temporaryDirectory>;
  let fake: FakeModelServer;
  let env: Record<string, string>;
  let server: StdioServer;

  beforeAll(async () => {
    directory = temporaryDirectory();
    fake = await createFakeModelServer({ respond: answerBySchemaName });
    env = {
      DATABASE_PATH: join(directory.path, "deliberate.db"),
      OPENAI_BASE_URL: fake.openaiBaseURL,
      OPENAI_API_KEY: "test",
    };
    server = await startStdioServer(env);
  });
  afterAll(async () => {
    await server?.close();
    await fake?.close();
    directory?.remove();
  });

  const call = (
    name: string,
    args: Record<string, unknown>,
    options?: Parameters<StdioServer["client"]["callTool"]>[1],
  ) => server.client.callTool({ name, arguments: args }, options);

  // Filled in as the scenario proceeds.
  let sessionId = "";
  let firstThoughtId = "";
  let rootBranchId = "";
  let branchIds: string[] = [];
  let checkpointId = "";

  it("lists every tool with input and output schemas and annotations", async () => {
    const { tools } = await server.client.listTools();
    const names = tools.map((tool) => tool.name);
    expect(names).toEqual(expect.arrayContaining([...coreDefinitions.keys()]));
    for (const tool of tools) {
      expect(tool.description, tool.name).toBeTruthy();
      expect(tool.inputSchema.type, tool.name).toBe("object");
      expect(tool.outputSchema?.type, tool.name).toBe("object");
      expect(tool.annotations, tool.name).toEqual({
        title: expect.any(String),
        readOnlyHint: expect.any(Boolean),
        destructiveHint: expect.any(Boolean),
        idempotentHint: expect.any(Boolean),
        openWorldHint: expect.any(Boolean),
      });
      expect(tool.title, tool.name).toBe(tool.annotations?.title);
    }
    const tree = tools.find((tool) => tool.name === "reasoning_tree");
    expect(tree?.inputSchema.properties).toMatchObject({
      operation: { enum: ["create", "focus", "list", "complete", null] },
      num_branches: { type: ["integer", "null"] },
    });
  });

  it("reasoning_linear starts a session and continues it", async () => {
    const first = expectOutput(
      "reasoning_linear",
      await call("reasoning_linear", { content: "We must pick a database for 10k writes/s.", confidence: "0.6" }),
    );
    sessionId = first["session_id"] as string;
    firstThoughtId = first["thought_id"] as string;
    expect(first["content"]).toContain("rules out option B");
    const second = expectOutput(
      "reasoning_linear",
      await call("reasoning_linear", { content: "Option A is Postgres.", session_id: sessionId }),
    );
    expect(second["session_id"]).toBe(sessionId);
    // The session's history went to the model with the second call.
    // The session history goes as separate messages before the prompt.
    expect(
      fake.requests
        .at(-1)
        ?.messages.map((message) => message.content)
        .join("\n"),
    ).toContain("We must pick a database");
  });

  it("reasoning_tree create (num_branches as a string), list, focus, complete", async () => {
    const created = expectOutput(
      "reasoning_tree",
      await call("reasoning_tree", {
        operation: "create",
        content: "How to shard?",
        session_id: sessionId,
        num_branches: "3",
      }),
    );
    rootBranchId = created["branch_id"] as string;
    branchIds = (created["branches"] as Array<{ id: string }>).map((branch) => branch.id);
    expect(branchIds).toHaveLength(3);

    const listed = expectOutput(
      "reasoning_tree",
      await call("reasoning_tree", { operation: "list", session_id: sessionId }),
    );
    expect((listed["branches"] as Array<{ id: string }>).map((branch) => branch.id)).toEqual(
      expect.arrayContaining([rootBranchId, ...branchIds]),
    );

    const focused = expectOutput(
      "reasoning_tree",
      await call("reasoning_tree", { operation: "focus", session_id: sessionId, branch_id: branchIds[0] }),
    );
    expect(focused["branch_id"]).toBe(branchIds[0]);

    const completed = expectOutput(
      "reasoning_tree",
      await call("reasoning_tree", {
        operation: "complete",
        session_id: sessionId,
        branch_id: branchIds[2],
        completed: "false",
      }),
    );
    expect(
      (completed["branches"] as Array<{ id: string; status: string }>).find((branch) => branch.id === branchIds[2])
        ?.status,
    ).toBe("abandoned");
  });

  it("reasoning_divergent (numbers and booleans as strings) with progress notifications", async () => {
    const progress: Array<{ progress: number; total?: number }> = [];
    const result = expectOutput(
      "reasoning_divergent",
      await call(
        "reasoning_divergent",
        {
          content: "Cut cloud cost by half.",
          session_id: sessionId,
          num_perspectives: "3",
          challenge_assumptions: "true",
        },
        { onprogress: (update) => (update.message?.startsWith("generating ") ? undefined : progress.push(update)) },
      ),
    );
    expect(result["perspectives"]).toHaveLength(3);
    expect(result["challenged_assumptions"]).toEqual(["Budget is fixed"]);
    // Three perspectives and the synthesis, each reported, increasing, out of 4.
    // The SDK client hands notifications to their handler a tick after it reads them, so the last ones can
    // lose the race with the response that follows them on the wire: assert what arrived, not that all did.
    expect(progress.length).toBeGreaterThan(0);
    expect(progress.map((update) => update.progress)).toEqual([1, 2, 3, 4].slice(0, progress.length));
    expect(progress.every((update) => update.total === 4)).toBe(true);
  });

  it("reasoning_reflection process and evaluate", async () => {
    const processed = expectOutput(
      "reasoning_reflection",
      await call("reasoning_reflection", {
        operation: "process",
        thought_id: firstThoughtId,
        quality_threshold: "0.8",
      }),
    );
    expect(processed).toMatchObject({ session_id: sessionId, quality_score: 0.9, iterations_used: 1 });
    const evaluated = expectOutput(
      "reasoning_reflection",
      await call("reasoning_reflection", { operation: "evaluate", session_id: sessionId }),
    );
    expect(evaluated).toMatchObject({ session_id: sessionId, quality_score: 0.75, coherence_score: 0.8 });
  });

  it("reasoning_checkpoint create, list and restore (setting later thoughts aside)", async () => {
    const created = expectOutput(
      "reasoning_checkpoint",
      await call("reasoning_checkpoint", { operation: "create", session_id: sessionId, name: "before sharding" }),
    );
    checkpointId = created["checkpoint_id"] as string;
    expectOutput(
      "reasoning_linear",
      await call("reasoning_linear", { content: "A detour we will undo.", session_id: sessionId }),
    );

    const listed = expectOutput(
      "reasoning_checkpoint",
      await call("reasoning_checkpoint", { operation: "list", session_id: sessionId }),
    );
    expect(listed["checkpoints"]).toEqual([expect.objectContaining({ id: checkpointId, name: "before sharding" })]);

    const restored = expectOutput(
      "reasoning_checkpoint",
      await call("reasoning_checkpoint", {
        operation: "restore",
        session_id: sessionId,
        checkpoint_id: checkpointId,
        new_direction: "Try caching first.",
      }),
    );
    expect(restored["restored_state"]).toMatchObject({
      checkpoint_id: checkpointId,
      superseded_thought_count: 2,
      new_direction_thought_id: expect.any(String),
    });
  });

  it("reasoning_auto routes and runs the chosen mode", async () => {
    const result = expectOutput(
      "reasoning_auto",
      await call("reasoning_auto", { content: "Is caching enough?", session_id: sessionId }),
    );
    expect(result).toMatchObject({ selected_mode: "linear", confidence: 0.9, result: { session_id: sessionId } });
  });

  // The second process also serves a client speaking the 2026-07-28 revision (one spawn for both checks).
  it("a second server process on the same database sees the session, and serves a client speaking the 2026-07-28 revision", async () => {
    const second = await startStdioServer(env, { versionNegotiation: { mode: "auto" } });
    try {
      expect(second.client.getNegotiatedProtocolVersion()).toBe("2026-07-28");
      const { tools } = await second.client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining([...coreDefinitions.keys()]));
      const missing = await second.client.callTool({
        name: "reasoning_checkpoint",
        arguments: { operation: "list", session_id: "ses_missing" },
      });
      expect(missing.isError).toBe(true);
      expect(JSON.parse((missing.content as Array<{ text: string }>)[0]?.text ?? "")).toMatchObject({
        code: "NOT_FOUND",
        issues: [{ field: "session_id" }],
      });

      const listed = expectOutput(
        "reasoning_tree",
        await second.client.callTool({
          name: "reasoning_tree",
          arguments: { operation: "list", session_id: sessionId },
        }),
      );
      expect((listed["branches"] as Array<{ id: string; status: string }>).map((branch) => branch.id).sort()).toEqual(
        [rootBranchId, ...branchIds].sort(),
      );
      const checkpoints = expectOutput(
        "reasoning_checkpoint",
        await second.client.callTool({
          name: "reasoning_checkpoint",
          arguments: { operation: "list", session_id: sessionId },
        }),
      );
      expect(checkpoints["checkpoints"]).toEqual([
        expect.objectContaining({ id: checkpointId, name: "before sharding" }),
      ]);
    } finally {
      await second.close();
    }
  });
});
