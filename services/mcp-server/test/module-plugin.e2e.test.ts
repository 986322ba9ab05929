import { mkdtempSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { needsCompletionSchema } from "@deliberate/contracts";
import { build } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { builtServer, startStdioServer, temporaryDirectory, type StdioServer } from "./support/server-process.ts";

// A module defined in a test folder (one tool, one mode, one table), built only from the engine's public
// API, plugged into the built server through DELIBERATE_MODULES with no edit to the server.
// The test compiles it as a module package would ship: one ES module holding its own code and the workspace
// sources it imports, importing its npm dependencies (zod, kysely) as packages. (Loading the TypeScript
// sources through tsx in the server instead cost the spawn more than a second of CPU.)
const notesSource = join(
  import.meta.dirname,
  "..",
  "..",
  "..",
  "packages",
  "engine",
  "test",
  "fixtures",
  "notes-module.ts",
);

/** Bundles `entry` into `outfile`: workspace packages and relative files inlined, npm packages left as imports. */
async function compileModule(entry: string, outfile: string): Promise<void> {
  await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    format: "esm",
    platform: "node",
    target: "node20",
    logLevel: "warning",
    plugins: [
      {
        name: "npm-packages-external",
        setup(context) {
          context.onResolve({ filter: /^[^./]/ }, (args) =>
            args.path.startsWith("@deliberate/") ? undefined : { path: args.path, external: true },
          );
        },
      },
    ],
  });
}

describe("a new module plugged in with DELIBERATE_MODULES", () => {
  const directory = temporaryDirectory();
  // Inside the package, so the compiled module's package imports resolve from its node_modules.
  const compiled = mkdtempSync(join(dirname(dirname(builtServer)), ".module-plugin-test-"));
  let server: StdioServer;

  beforeAll(async () => {
    const notesModule = join(compiled, "notes-module.mjs");
    await compileModule(notesSource, notesModule);
    server = await startStdioServer({
      DATABASE_PATH: join(directory.path, "plugin.db"),
      DELIBERATE_MODULES: notesModule,
    });
  });
  afterAll(async () => {
    await server?.close();
    directory.remove();
    rmSync(compiled, { recursive: true, force: true });
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
    const result = await call("reasoning_submit", {
      resume_token: step.resume_token,
      answers: [{ prompt_id: step.prompts[0]?.id, answer }],
    });
    expect(result).toMatchObject({ note: answer.note, confidence: 0.7 });

    const metrics = await call("reasoning_metrics", { query: "by_mode", mode_name: "notes_take" });
    expect(metrics["mode_stats"]).toMatchObject({ mode_name: "notes_take", call_count: 1, success_rate: 1 });
  });
});
