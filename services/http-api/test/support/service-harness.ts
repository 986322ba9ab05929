import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { testServerEnvironment, testStorePlace } from "@deliberate/engine/testing";
import { countDataRows } from "@deliberate/store/testing";
import { parseApiEnvironment } from "../../src/config.ts";
import { createApiService, type ApiService, type ApiServiceOptions } from "../../src/service.ts";

/** A running service on a loopback port with its log lines captured. */
export interface RunningService {
  service: ApiService;
  url: string;
  /** Every log line written so far (JSON strings). */
  logs: string[];
  stop(): Promise<void>;
}

/** Environment for tests: port 0, in-memory database, fast queue polling, quiet. */
export function testEnvironment(env: Record<string, string | undefined> = {}): Record<string, string | undefined> {
  return {
    PORT: "0",
    DATABASE_PATH: ":memory:",
    LOG_LEVEL: "debug",
    REASONING_QUEUE_POLL_MS: "10",
    REASONING_QUEUE_STATUS_POLL_MS: "50",
    REASONING_CALLBACK_BACKOFF_MS: "20",
    REASONING_SHUTDOWN_GRACE_MS: "2000",
    ...env,
  };
}

/**
 * With `DELIBERATE_TEST_ENGINE_DIALECT=postgres` the suite runs on Postgres:
 * an in-memory database becomes a fresh schema, and a file path the same
 * schema for every service given that path (so replica tests share it); see
 * `testServerEnvironment`.
 */
async function onTestDialect(env: Record<string, string | undefined>): Promise<Record<string, string | undefined>> {
  return testServerEnvironment({ ...env, DATABASE_PATH: env["DATABASE_PATH"] ?? ":memory:" });
}

/** `openStore` options reaching the database a service given `DATABASE_PATH=path` uses (see onTestDialect). */
export function databaseOptions(path: string): Promise<{ path: string } | { url: string }> {
  return testStorePlace(path);
}

/** Starts the real service (app + workers) on 127.0.0.1:0. */
export async function startService(
  env: Record<string, string | undefined> = {},
  options: Omit<ApiServiceOptions, "config"> = {},
): Promise<RunningService> {
  const logs: string[] = [];
  const config = parseApiEnvironment(await onTestDialect(testEnvironment(env)));
  const service = await createApiService({ config, logSinks: [(line) => void logs.push(line)], ...options });
  const url = await service.start();
  return { service, url, logs, stop: () => service.stop() };
}

/** A temporary directory removed by the returned cleanup. */
export function temporaryDirectory(): { path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), "deliberate-http-api-"));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

/** POSTs JSON and returns status, headers and the parsed body. */
export async function postJson(url: string, body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await response.text();
  // biome-ignore lint/suspicious/noExplicitAny: tests assert on response bodies field by field
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, json, text };
}

export async function getJson(url: string, headers: Record<string, string> = {}) {
  const response = await fetch(url, { headers });
  const text = await response.text();
  // biome-ignore lint/suspicious/noExplicitAny: tests assert on response bodies field by field
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, json, text };
}

/**
 * Polls `check` until it returns a value (not undefined) or the time runs out. Deadlines are generous (30 s by
 * default): they only bound a wait for something that should happen, and a loaded machine can take seconds.
 */
export async function eventually<T>(
  check: () => Promise<T | undefined> | T | undefined,
  timeoutMs = 30_000,
  what = "condition",
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Rows in every data table, by table (`countDataRows`): a rejected call must leave every count unchanged. */
export const countRows = countDataRows;
