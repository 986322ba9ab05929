import { join } from "node:path";
import { needsCompletionSchema } from "@deliberate/contracts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startStdioServer, temporaryDirectory, type StdioServer } from "./support/server-process.ts";

// A module defined in a test folder (one tool, one mode, one table), built only from the engine's public
// API, plugged into the built server through DELIBERATE_MODULES with no edit to the server.
// tsx lets the built server import the TypeScript module file, as it would a compiled package.
const notesModule = join(import.meta.dirname, "..", "..", "..", "packages", "engine", "test", "fixtures", "notes-module.ts");

describe("a new module plugged in with DELIBERATE_MODULES", () => {
  const directory = temporaryDirectory();
  let server: StdioServer;

  beforeAll(async () => {
    server = await startStdioServer({ DATABASE_PATH: join(directory.path, "plugin.db"), DELIBERATE_MODULES: notesModule }, undefined, ["--import", "tsx"]);
  });
  afterAll(async () => {
    await server?.close();
    directory.remove();
  });

  async function call(name: string, args: Record<string, unknown>) {
    const result = await server.client.callTool({ name, arguments: args });
    expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
    return result.structuredContent as Record<string, unknown>;
  }

  it("lists its tool, completes it host-executed with no key, and counts it in metrics", async () => {
    const { tools } = await server.client.listTools();
    expect(tools.map((tool) => tool.name)).toContain("notes_take");

    const step = needsCompletionSchema.parse(await call("notes_take", { topic: "caching" }));
    const answer = { note: "Invalidate on write.", confidence: 0.7 };
    const result = await call("reasoning_submit", { resume_token: step.resume_token, answers: [{ prompt_id: step.prompts[0]?.id, answer }] });
    expect(result).toMatchObject({ note: answer.note, confidence: 0.7 });

    const metrics = await call("reasoning_metrics", { query: "by_mode", mode_name: "notes_take" });
    expect(metrics["mode_stats"]).toMatchObject({ mode_name: "notes_take", call_count: 1, success_rate: 1 });
  });
});
