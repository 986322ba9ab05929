import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Readable } from "node:stream";
import {
  allToolDefinitions,
  errorBodySchema,
  reasoningTools,
  type ErrorBody,
  type ToolDefinition,
} from "@deliberate/contracts";
import type { Client } from "@modelcontextprotocol/client";
import { testClient } from "./test-client.ts";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { testServerEnvironment } from "@deliberate/engine/testing";
import { expect } from "vitest";
import { builtServer } from "./global-setup.ts";

export { builtServer };

/** A temporary folder for one test file's databases; `remove()` deletes it. */
export function temporaryDirectory(): { path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), "deliberate-mcp-test-"));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

/** Collects a stream's lines as they arrive. */
export function collectLines(stream: Readable | null | undefined): string[] {
  const lines: string[] = [];
  let pending = "";
  stream?.setEncoding("utf8");
  stream?.on("data", (chunk: string) => {
    pending += chunk;
    const parts = pending.split("\n");
    pending = parts.pop() ?? "";
    lines.push(...parts.filter((line) => line !== ""));
  });
  return lines;
}

export interface StdioServer {
  client: Client;
  /** The server's stderr, line by line (structured JSON logs). */
  stderr: string[];
  close(): Promise<void>;
}

/**
 * Spawns the built server (`node dist/main.js`) with `env` (on top of the
 * SDK's minimal inherited environment: no API keys leak in) and connects the
 * real SDK v2 client to it over stdio. With `DELIBERATE_TEST_ENGINE_DIALECT=postgres`
 * its `DATABASE_PATH` becomes a `DATABASE_URL` on the run's Postgres (`testServerEnvironment`).
 */
export async function startStdioServer(
  env: Record<string, string>,
  clientOptions?: ConstructorParameters<typeof Client>[1],
  nodeArguments: readonly string[] = [],
): Promise<StdioServer> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [...nodeArguments, builtServer],
    env: await testServerEnvironment({ LOG_LEVEL: "debug", DELIBERATE_TOOLSETS: "all", ...env }),
    stderr: "pipe",
  });
  const stderr = collectLines(transport.stderr as Readable | null);
  const client = testClient({ name: "deliberate-e2e", version: "1.0.0" }, clientOptions);
  try {
    await client.connect(transport);
  } catch (error) {
    throw new Error(`The server did not start: ${String(error)}\n${stderr.join("\n")}`, { cause: error });
  }
  return { client, stderr, close: () => client.close() };
}

/** The core definitions by tool name (their unwidened output schemas: a real result, never a host step). */
export const coreDefinitions = new Map<string, ToolDefinition>(
  [
    reasoningTools.reasoning_linear,
    reasoningTools.reasoning_tree,
    reasoningTools.reasoning_divergent,
    reasoningTools.reasoning_reflection,
    reasoningTools.reasoning_checkpoint,
    reasoningTools.reasoning_auto,
  ].map((definition) => [definition.name, definition as ToolDefinition]),
);

/** Every definition by tool name, for checking any tool's result. */
const allDefinitions = new Map<string, ToolDefinition>(
  allToolDefinitions.map((definition) => [definition.name, definition as ToolDefinition]),
);

function textContent(result: { content?: unknown }): string {
  const content = result.content as Array<{ type: string; text?: string }>;
  expect(content).toHaveLength(1);
  expect(content[0]?.type).toBe("text");
  return content[0]?.text ?? "";
}

/**
 * Asserts a successful result: not an error, structuredContent valid against
 * the tool's zod output schema, and the text content the same JSON.
 */
export function expectOutput(
  tool: string,
  result: { isError?: boolean; content?: unknown; structuredContent?: unknown },
): Record<string, unknown> {
  const text = textContent(result);
  expect(result.isError, `${tool} failed: ${text}`).toBeFalsy();
  const definition = allDefinitions.get(tool);
  if (!definition) throw new Error(`no core definition for ${tool}`);
  const checked = definition.outputSchema.safeParse(result.structuredContent);
  expect(checked.success, `${tool} output does not match its schema: ${checked.error?.message}`).toBe(true);
  expect(JSON.parse(text)).toEqual(result.structuredContent);
  expect(text).toBe(JSON.stringify(result.structuredContent));
  return result.structuredContent as Record<string, unknown>;
}

/** Asserts a tool error whose text is the JSON error body, and returns the body. */
export function expectToolError(result: { isError?: boolean; content?: unknown }): ErrorBody {
  expect(result.isError).toBe(true);
  return errorBodySchema.parse(JSON.parse(textContent(result)));
}
