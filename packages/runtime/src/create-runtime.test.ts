import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { hostModelRouter } from "@deliberate/engine";
import { createLogger, silentLogger } from "@deliberate/logging";
import { afterEach, describe, expect, it } from "vitest";
import { readCommonSettings } from "./common-settings.ts";
import { createRuntime } from "./create-runtime.ts";
import { defaultModules } from "./default-modules.ts";
import { createEnvReader } from "./env-reader.ts";

const directories: string[] = [];
afterEach(() => {
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

function settingsFor(env: Record<string, string>) {
  const directory = mkdtempSync(join(tmpdir(), "deliberate-runtime-"));
  directories.push(directory);
  const reader = createEnvReader({ DATABASE_PATH: join(directory, "deliberate.db"), ...env });
  const settings = readCommonSettings(reader);
  reader.finish();
  return settings;
}

describe("createRuntime", () => {
  it("opens the store, serves the default modules and reports the config snapshot in reasoning_metrics", async () => {
    const settings = settingsFor({
      LOG_LEVEL: "warn",
      HOST_COMPLETION_TTL_SECONDS: "120",
      ANTHROPIC_API_KEY: "sk-ant-secret-value-123456",
      DELIBERATE_SELF_IMPROVEMENT_MODE: "off",
    });
    const runtime = await createRuntime({
      settings,
      modules: defaultModules(settings),
      logger: silentLogger,
      transport: "stdio",
    });
    try {
      await runtime.start();
      const names = runtime.engine.tools.map((tool) => tool.name);
      expect(names).toEqual(expect.arrayContaining(["reasoning_linear", "start_reasoning_session"]));
      expect([...runtime.engine.toolsets.keys()]).toEqual(expect.arrayContaining(["dialog", "knowledge-graph"]));
      const result = await runtime.engine.invoke("reasoning_metrics", { query: "config" });
      const config = result["config"] as Record<string, unknown>;
      expect(config).toMatchObject({
        transport: "stdio",
        log_level: "warn",
        host_completion_ttl_seconds: 120,
        database: expect.stringContaining("deliberate.db"),
      });
      expect(JSON.stringify(config)).not.toContain("sk-ant-secret-value-123456");
      expect(config).toHaveProperty("engine");
      expect(config).toHaveProperty("providers.provider", "anthropic");
      // The default modules' options, as their declared variables gave them; the module runs with them.
      expect(config).toHaveProperty(["modules", "self-improvement", "DELIBERATE_SELF_IMPROVEMENT_MODE"], "off");
      expect(runtime.engine.capabilities).toMatchObject({ self_improvement: { mode: "off" } });
    } finally {
      await runtime.close();
    }
  });

  it("sends host-executed steps compact by default, and in full with DELIBERATE_HOST_PROMPTS=full (hosts written before the compact form)", async () => {
    for (const [form, key] of [
      ["compact", "user_refs"],
      ["full", "user"],
    ] as const) {
      const settings = settingsFor({ DELIBERATE_HOST_PROMPTS: form });
      const runtime = await createRuntime({
        settings,
        modules: defaultModules(settings),
        logger: silentLogger,
        transport: "stdio",
        engineModels: hostModelRouter,
      });
      try {
        const step = await runtime.engine.invoke("reasoning_linear", { content: "Add a cache" });
        expect(step).toMatchObject({
          status: "needs_completion",
          prompts: [expect.objectContaining({ [key]: expect.anything() })],
        });
        expect(
          (
            (await runtime.engine.invoke("reasoning_metrics", { query: "config" }))["config"] as Record<string, unknown>
          )["host_prompts"],
        ).toBe(form);
      } finally {
        await runtime.close();
      }
    }
  });

  it("logs each invocation at debug level, and at a higher level writes no invocation line", async () => {
    for (const level of ["debug", "info"] as const) {
      const settings = settingsFor({ LOG_LEVEL: level });
      const lines: string[] = [];
      const runtime = await createRuntime({
        settings,
        modules: defaultModules(settings),
        logger: createLogger({ level, sinks: [(line) => lines.push(line)] }),
        transport: "stdio",
      });
      try {
        await runtime.engine.invoke("reasoning_metrics", { query: "config" });
        const invocations = lines
          .map((line) => JSON.parse(line) as Record<string, unknown>)
          .filter((entry) => entry["message"] === "invocation");
        if (level === "debug")
          expect(invocations).toMatchObject([{ level: "debug", tool: "reasoning_metrics", success: true }]);
        else expect(invocations).toEqual([]);
      } finally {
        await runtime.close();
      }
    }
  });
});
