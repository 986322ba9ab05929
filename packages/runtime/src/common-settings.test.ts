import { ConfigError } from "@deliberate/base";
import { describe, expect, it } from "vitest";
import { readCommonSettings } from "./common-settings.ts";
import { createEnvReader } from "./env-reader.ts";

function read(env: Record<string, string>) {
  const reader = createEnvReader(env);
  const settings = readCommonSettings(reader);
  reader.finish();
  return settings;
}

describe("readCommonSettings", () => {
  it("reads the defaults of an empty environment", () => {
    const settings = read({ HOME: "/home/someone" });
    expect(settings.logLevel).toBe("info");
    expect(settings.databasePoolSize).toBe(10);
    expect(settings.hostCompletionTtlSeconds).toBe(3600);
    expect(settings.hostPrompts).toBe("compact");
    expect(settings.database.dialect).toBe("sqlite");
    expect(settings.providers.provider).toBe("none");
    expect(settings.modules).toEqual([]);
  });

  it("names every bad common variable in one error: the service's, the store's, a module's", () => {
    let error: unknown;
    try {
      read({
        LOG_LEVEL: "loud",
        DATABASE_POOL_SIZE: "0",
        DATABASE_URL: "mysql://db/x",
        HOST_COMPLETION_TTL_SECONDS: "soon",
        DELIBERATE_SELF_IMPROVEMENT_MODE: "sometimes",
        DELIBERATE_HOST_PROMPTS: "short",
      });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const { variables, message } = error as ConfigError;
    expect(variables).toEqual(
      expect.arrayContaining([
        "LOG_LEVEL",
        "DATABASE_POOL_SIZE",
        "DATABASE_URL",
        "HOST_COMPLETION_TTL_SECONDS",
        "DELIBERATE_SELF_IMPROVEMENT_MODE",
        "DELIBERATE_HOST_PROMPTS",
      ]),
    );
    expect(message).toContain('DELIBERATE_HOST_PROMPTS must be one of compact, full (got "short")');
    expect(message).toMatch(/^Invalid configuration: /);
    expect(message).toContain('LOG_LEVEL must be one of debug, info, warn, error (got "loud")');
    expect(message).toContain('DATABASE_POOL_SIZE must be a whole number from 1 to 1000 (got "0")');
    expect(message).toContain('HOST_COMPLETION_TTL_SECONDS must be a whole number of seconds >= 1 (got "soon")');
    expect(message).toContain('DELIBERATE_SELF_IMPROVEMENT_MODE must be one of auto, advisory, off (got "sometimes")');
  });

  it("reads each default module's declared variables: every bad one named, values (and defaults) reported per module", () => {
    let error: unknown;
    try {
      read({
        LOG_LEVEL: "loud",
        DELIBERATE_SELF_IMPROVEMENT_CYCLE_MS: "soon",
        DELIBERATE_SELF_IMPROVEMENT_ALLOWLIST: "[1]",
      });
    } catch (caught) {
      error = caught;
    }
    expect((error as ConfigError).variables).toEqual([
      "LOG_LEVEL",
      "DELIBERATE_SELF_IMPROVEMENT_CYCLE_MS",
      "DELIBERATE_SELF_IMPROVEMENT_ALLOWLIST",
    ]);
    expect((error as ConfigError).message).toContain(
      'DELIBERATE_SELF_IMPROVEMENT_CYCLE_MS must be a positive integer (got "soon")',
    );
    // A combination one variable cannot judge alone is still named, in the same error.
    expect(() => read({ LOG_LEVEL: "loud", DELIBERATE_SELF_IMPROVEMENT_MIN_SAMPLES: "80" })).toThrow(
      /LOG_LEVEL.*monitor\.minSamples/,
    );

    const settings = read({
      DELIBERATE_SELF_IMPROVEMENT_MODE: "Advisory",
      DELIBERATE_SELF_IMPROVEMENT_CYCLE_MS: "60000",
    });
    expect(settings.moduleSettings.selfImprovement).toMatchObject({ mode: "advisory", cycleMs: 60_000 });
    expect(settings.moduleSettings.report["self-improvement"]).toMatchObject({
      DELIBERATE_SELF_IMPROVEMENT_MODE: "advisory",
      DELIBERATE_SELF_IMPROVEMENT_CYCLE_MS: 60_000,
      DELIBERATE_SELF_IMPROVEMENT_ANALYZER: "auto",
      DELIBERATE_SELF_IMPROVEMENT_ALLOWLIST: null,
    });
  });
});
