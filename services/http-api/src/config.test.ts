import { homedir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError, parseApiEnvironment } from "./config.ts";

describe("parseApiEnvironment", () => {
  it("reads HOST_COMPLETION_TTL_SECONDS as the MCP server does, and names it with every other bad variable", () => {
    expect(parseApiEnvironment({}).hostCompletionTtlSeconds).toBe(3600);
    expect(parseApiEnvironment({ HOST_COMPLETION_TTL_SECONDS: "90" }).hostCompletionTtlSeconds).toBe(90);
    let error: unknown;
    try {
      parseApiEnvironment({
        HOST_COMPLETION_TTL_SECONDS: "0",
        REASONING_QUEUE_WORKERS: "many",
        DELIBERATE_SELF_IMPROVEMENT_MODE: "sometimes",
      });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).variables).toEqual(
      expect.arrayContaining([
        "HOST_COMPLETION_TTL_SECONDS",
        "REASONING_QUEUE_WORKERS",
        "DELIBERATE_SELF_IMPROVEMENT_MODE",
      ]),
    );
    expect((error as ConfigError).message).toContain(
      'HOST_COMPLETION_TTL_SECONDS must be a whole number of seconds >= 1 (got "0")',
    );
  });

  it("defaults to 127.0.0.1:9000 with four workers polling every 50 ms", () => {
    const config = parseApiEnvironment({});
    expect(config).toMatchObject({
      host: "127.0.0.1",
      port: 9000,
      databasePath: join(homedir(), ".local", "share", "deliberate", "deliberate.db"),
      logStdout: false,
    });
    expect(config.queue).toMatchObject({ enabled: true, workers: 4, pollMs: 50 });
    expect(config.http).toMatchObject({ apiToken: undefined, maxBodyBytes: 1024 * 1024 });
    expect(config.providers.provider).toBe("none");
  });

  it("selects Postgres from DATABASE_URL, counting rate limits in the database there by default", () => {
    const sqlite = parseApiEnvironment({ DATABASE_PATH: "/tmp/x.db" });
    expect([sqlite.database, sqlite.http.rateLimitStore, sqlite.databasePoolSize]).toEqual([
      { dialect: "sqlite", path: "/tmp/x.db" },
      "memory",
      10,
    ]);
    const postgres = parseApiEnvironment({ DATABASE_URL: "postgres://u:p@db:5432/d", DATABASE_POOL_SIZE: "4" });
    expect([postgres.database, postgres.http.rateLimitStore, postgres.databasePoolSize]).toEqual([
      { dialect: "postgres", url: "postgres://u:p@db:5432/d" },
      "database",
      4,
    ]);
    expect(
      parseApiEnvironment({ DATABASE_URL: "postgres://db/d", REASONING_API_RATE_LIMIT_STORE: "memory" }).http
        .rateLimitStore,
    ).toBe("memory");
    const error = (() => {
      try {
        parseApiEnvironment({
          DATABASE_URL: "mysql://db/d",
          REASONING_API_RATE_LIMIT_STORE: "redis",
          DATABASE_POOL_SIZE: "0",
        });
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).variables).toEqual(
      expect.arrayContaining(["DATABASE_URL", "REASONING_API_RATE_LIMIT_STORE", "DATABASE_POOL_SIZE"]),
    );
  });

  it("reads the spec's names (and HOST/PORT over UVICORN_*)", () => {
    const config = parseApiEnvironment({
      UVICORN_HOST: "localhost",
      UVICORN_PORT: "9100",
      REASONING_QUEUE_WORKER: "0",
      REASONING_QUEUE_WORKERS: "8",
      REASONING_QUEUE_POLL_MS: "25",
      REASONING_LOG_FILE: "/tmp/r.log",
      REASONING_LOG_STDOUT: "1",
      REASONING_CALLBACK_ALLOWLIST: " hooks.internal , 127.0.0.1,[::1]",
    });
    expect(config).toMatchObject({ host: "localhost", port: 9100, logFile: "/tmp/r.log", logStdout: true });
    expect(config.queue).toMatchObject({ enabled: false, workers: 8, pollMs: 25 });
    expect(config.callbacks.allowlist).toEqual(["hooks.internal", "127.0.0.1", "::1"]);
    expect(parseApiEnvironment({ HOST: "127.0.0.2", PORT: "1", UVICORN_PORT: "2" })).toMatchObject({
      host: "127.0.0.2",
      port: 1,
    });
  });

  it("names every invalid variable at once", () => {
    try {
      parseApiEnvironment({
        PORT: "70000",
        REASONING_QUEUE_WORKERS: "zero",
        LOG_LEVEL: "loud",
        REASONING_CALLBACK_ALLOWLIST: "http://x/",
        DELIBERATE_PROVIDER: "gemini",
      });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).variables).toEqual(
        expect.arrayContaining([
          "PORT",
          "REASONING_QUEUE_WORKERS",
          "LOG_LEVEL",
          "REASONING_CALLBACK_ALLOWLIST",
          "DELIBERATE_PROVIDER",
        ]),
      );
    }
  });

  it("refuses a public bind without a token unless explicitly allowed, and short tokens", () => {
    expect(() => parseApiEnvironment({ HOST: "0.0.0.0" })).toThrow(/REASONING_API_TOKEN/);
    expect(parseApiEnvironment({ HOST: "0.0.0.0", REASONING_API_TOKEN: "a-long-enough-token" }).http.apiToken).toBe(
      "a-long-enough-token",
    );
    expect(parseApiEnvironment({ HOST: "0.0.0.0", REASONING_API_ALLOW_NO_AUTH: "1" }).host).toBe("0.0.0.0");
    expect(() => parseApiEnvironment({ REASONING_API_TOKEN: "short" })).toThrow(/at least 16/);
  });
});
