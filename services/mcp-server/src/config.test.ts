import { homedir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError, isLoopbackHost, parseCommandLine, type ServerConfig } from "./config.ts";

// The default database: under the user's data directory, whatever folder the client launches the server in.
const userDatabase = join(homedir(), ".local", "share", "deliberate", "deliberate.db");

function run(argv: string[], env: Record<string, string | undefined> = {}): ServerConfig {
  const parsed = parseCommandLine({ argv, env });
  if (parsed.action !== "run") throw new Error(`expected run, got ${parsed.action}`);
  return parsed.config;
}

function failure(argv: string[], env: Record<string, string | undefined> = {}): ConfigError {
  try {
    parseCommandLine({ argv, env });
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error("expected a ConfigError");
}

describe("parseCommandLine", () => {
  it("names every bad variable in one ConfigError: the transport's, the shared ones and a module's", () => {
    const error = failure(["--http"], {
      MCP_HTTP_PORT: "99999",
      MCP_HTTP_BODY_TIMEOUT_MS: "5",
      LOG_LEVEL: "loud",
      DATABASE_POOL_SIZE: "0",
      HOST_COMPLETION_TTL_SECONDS: "soon",
      DELIBERATE_SELF_IMPROVEMENT_MODE: "sometimes",
    });
    expect(error.variables).toEqual(
      expect.arrayContaining([
        "MCP_HTTP_PORT",
        "MCP_HTTP_BODY_TIMEOUT_MS",
        "LOG_LEVEL",
        "DATABASE_POOL_SIZE",
        "HOST_COMPLETION_TTL_SECONDS",
        "DELIBERATE_SELF_IMPROVEMENT_MODE",
      ]),
    );
    expect(error.message).toMatch(/^Invalid configuration: /);
    expect(error.message).toContain('MCP_HTTP_PORT must be a port number from 0 to 65535 (got "99999")');
    expect(error.message).toContain(
      'MCP_HTTP_BODY_TIMEOUT_MS must be a whole number of milliseconds from 100 to 3600000 (got "5")',
    );
  });

  it("defaults to stdio, the user data directory's deliberate.db, info and no provider", () => {
    const config = run([]);
    expect(config.transport).toEqual({ kind: "stdio" });
    expect(config.databasePath).toBe(userDatabase);
    expect(run([], { XDG_DATA_HOME: "/home/u/data" }).database).toEqual({
      dialect: "sqlite",
      path: "/home/u/data/deliberate/deliberate.db",
    });
    expect(config.logLevel).toBe("info");
    expect(config.providers.provider).toBe("none");
  });

  it("reads DATABASE_PATH and LOG_LEVEL, treating blank values as unset", () => {
    expect(run([], { DATABASE_PATH: "/tmp/x.db", LOG_LEVEL: "DEBUG" })).toMatchObject({
      databasePath: "/tmp/x.db",
      logLevel: "debug",
    });
    expect(run([], { DATABASE_PATH: "  ", LOG_LEVEL: "" })).toMatchObject({
      databasePath: userDatabase,
      logLevel: "info",
    });
  });

  it("selects Postgres from DATABASE_URL and names it when it is neither Postgres nor SQLite", () => {
    expect(run([]).database).toEqual({ dialect: "sqlite", path: userDatabase });
    expect(run([], { DATABASE_URL: "postgres://u:p@db/d", DATABASE_POOL_SIZE: "3" })).toMatchObject({
      database: { dialect: "postgres", url: "postgres://u:p@db/d" },
      databasePoolSize: 3,
    });
    expect(failure([], { DATABASE_URL: "mongodb://db/d" }).variables).toEqual(["DATABASE_URL"]);
    expect(failure([], { DATABASE_POOL_SIZE: "many" }).variables).toEqual(["DATABASE_POOL_SIZE"]);
  });

  it("reads DELIBERATE_TOOLSETS: default core, lower-cased, each once, blank as unset", () => {
    const toolsets = (env: Record<string, string>) => run([], env).toolsets;
    expect(toolsets({})).toEqual(["core"]);
    expect(toolsets({ DELIBERATE_TOOLSETS: "  " })).toEqual(["core"]);
    expect(toolsets({ DELIBERATE_TOOLSETS: "Core, analysis,core,,DIALOG" })).toEqual(["core", "analysis", "dialog"]);
    expect(toolsets({ DELIBERATE_TOOLSETS: "all" })).toEqual(["all"]);
  });

  it("names LOG_LEVEL when it is invalid", () => {
    const error = failure([], { LOG_LEVEL: "verbose" });
    expect(error.variables).toEqual(["LOG_LEVEL"]);
    expect(error.message).toContain("debug, info, warn, error");
  });

  it("--http binds 127.0.0.1:8080 by default, flags win over the environment", () => {
    expect(run(["--http"]).transport).toEqual({
      kind: "http",
      host: "127.0.0.1",
      port: 8080,
      token: undefined,
      allowedHosts: [],
      allowedOrigins: [],
      headersTimeoutMs: 10_000,
      bodyTimeoutMs: 30_000,
      maxBodyBytes: 1024 * 1024,
    });
    expect(run(["--http"], { MCP_HTTP_MAX_BODY_BYTES: "2048" }).transport).toMatchObject({ maxBodyBytes: 2048 });
    for (const bad of ["1023", "1.5", "lots", String(64 * 1024 * 1024 + 1)])
      expect(() => run(["--http"], { MCP_HTTP_MAX_BODY_BYTES: bad }), bad).toThrow(/MCP_HTTP_MAX_BODY_BYTES/);
    expect(run(["--http"], { MCP_HTTP_PORT: "9000", MCP_HTTP_HOST: "localhost" }).transport).toMatchObject({
      host: "localhost",
      port: 9000,
    });
    expect(run(["--http", "--port", "0", "--host", "::1"], { MCP_HTTP_PORT: "9000" }).transport).toMatchObject({
      host: "::1",
      port: 0,
    });
    expect(run([], { MCP_TRANSPORT: "http" }).transport).toMatchObject({ kind: "http", port: 8080 });
  });

  it("names the flag or variable of a bad port or host", () => {
    expect(failure(["--http", "--port", "99999"]).variables).toEqual(["--port"]);
    expect(failure(["--http"], { MCP_HTTP_PORT: "eighty" }).variables).toEqual(["MCP_HTTP_PORT"]);
    expect(failure(["--http", "--host", "not a host"]).variables).toEqual(["--host"]);
    expect(failure([], { MCP_TRANSPORT: "websocket" }).variables).toEqual(["MCP_TRANSPORT"]);
  });

  it("refuses a non-loopback bind without MCP_HTTP_TOKEN, and accepts it with one", () => {
    const error = failure(["--http", "--host", "0.0.0.0"]);
    expect(error.variables).toContain("MCP_HTTP_TOKEN");
    expect(error.message).toContain("MCP_HTTP_TOKEN");
    expect(failure(["--http"], { MCP_HTTP_HOST: "192.168.1.20" }).variables).toEqual([
      "MCP_HTTP_TOKEN",
      "MCP_HTTP_HOST",
    ]);
    const transport = run(["--http", "--host", "0.0.0.0"], { MCP_HTTP_TOKEN: "s3cret" }).transport;
    expect(transport).toMatchObject({ kind: "http", host: "0.0.0.0", token: "s3cret", allowedHosts: [] });
  });

  it("allows a named bind host as Host header and parses the allowlists", () => {
    const transport = run(["--http", "--host", "10.0.0.5"], {
      MCP_HTTP_TOKEN: "t",
      MCP_ALLOWED_HOSTS: "mcp.example.com:8080, other.example.com",
      MCP_ALLOWED_ORIGINS: "https://app.example.com, localhost:3000, moz-extension://*",
    }).transport;
    expect(transport).toMatchObject({
      allowedHosts: ["mcp.example.com", "other.example.com", "10.0.0.5"],
      allowedOrigins: ["app.example.com", "localhost", "moz-extension://*"],
    });
    expect(failure(["--http"], { MCP_ALLOWED_ORIGINS: "https://" }).variables).toEqual(["MCP_ALLOWED_ORIGINS"]);
    expect(failure(["--http"], { MCP_ALLOWED_HOSTS: "*" }).variables).toEqual(["MCP_ALLOWED_HOSTS", "MCP_HTTP_TOKEN"]);
    expect(run(["--http"], { MCP_ALLOWED_HOSTS: "*", MCP_HTTP_TOKEN: "t" }).transport).toMatchObject({
      allowedHosts: ["*"],
    });
  });

  it("reads the header and body timeouts, naming a bad one", () => {
    expect(
      run(["--http"], { MCP_HTTP_HEADERS_TIMEOUT_MS: "2000", MCP_HTTP_BODY_TIMEOUT_MS: "5000" }).transport,
    ).toMatchObject({ headersTimeoutMs: 2000, bodyTimeoutMs: 5000 });
    expect(failure(["--http"], { MCP_HTTP_BODY_TIMEOUT_MS: "soon" }).variables).toEqual(["MCP_HTTP_BODY_TIMEOUT_MS"]);
    expect(failure(["--http"], { MCP_HTTP_HEADERS_TIMEOUT_MS: "50" }).variables).toEqual([
      "MCP_HTTP_HEADERS_TIMEOUT_MS",
    ]);
    expect(
      failure(["--http"], { MCP_HTTP_HEADERS_TIMEOUT_MS: "9000", MCP_HTTP_BODY_TIMEOUT_MS: "8000" }).variables,
    ).toEqual(["MCP_HTTP_HEADERS_TIMEOUT_MS", "MCP_HTTP_BODY_TIMEOUT_MS"]);
  });

  it("--print-config takes claude-code or claude-desktop, with the rest of the configuration", () => {
    const parsed = parseCommandLine({
      argv: ["--print-config", "claude-desktop"],
      env: { DATABASE_PATH: "/data/d.db" },
    });
    expect(parsed).toMatchObject({
      action: "print-config",
      client: "claude-desktop",
      config: { databasePath: "/data/d.db" },
    });
    expect(failure(["--print-config", "cursor"]).variables).toEqual(["--print-config"]);
  });

  it("rejects unknown flags and --port without --http", () => {
    expect(failure(["--htp"]).variables).toEqual(["command line"]);
    expect(failure(["--port", "8080"]).message).toContain("--http");
  });

  it("answers --help and --version without reading the environment", () => {
    expect(parseCommandLine({ argv: ["--help"], env: { LOG_LEVEL: "nonsense" } })).toEqual({ action: "help" });
    expect(parseCommandLine({ argv: ["-v"], env: {} })).toEqual({ action: "version" });
  });

  it("passes provider selection through and names invalid provider variables", () => {
    expect(run([], { OPENAI_BASE_URL: "http://127.0.0.1:1/v1" }).providers).toMatchObject({
      provider: "openai",
      reason: "OPENAI_BASE_URL is set",
    });
    const error = failure([], { MAX_RETRIES: "many", DELIBERATE_PROVIDER: "gemini" });
    expect(error.variables).toEqual(expect.arrayContaining(["MAX_RETRIES", "DELIBERATE_PROVIDER"]));
  });
});

describe("isLoopbackHost", () => {
  it("knows loopback from the rest", () => {
    for (const host of ["127.0.0.1", "127.1.2.3", "::1", "[::1]", "localhost", "LOCALHOST", "app.localhost"])
      expect(isLoopbackHost(host), host).toBe(true);
    for (const host of ["0.0.0.0", "::", "10.0.0.1", "example.com", "128.0.0.1"])
      expect(isLoopbackHost(host), host).toBe(false);
  });
});
