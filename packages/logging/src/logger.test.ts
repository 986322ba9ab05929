import { describe, expect, it } from "vitest";
import { createLogger, createSecretRegistry } from "./logger.ts";

function capture() {
  const lines: string[] = [];
  return { lines, sink: (line: string) => void lines.push(line) };
}

describe("createLogger", () => {
  it("writes one JSON object per line and drops lines below the level", () => {
    const { lines, sink } = capture();
    const logger = createLogger({ level: "warn", sinks: [sink], now: () => new Date("2026-11-22T10:00:00.000Z") });
    logger.debug("hidden");
    logger.info("hidden too");
    logger.warn("careful", { tool: "reasoning_tree", skipped: undefined, message: "not this", level: "debug" });
    logger.error("broken", { error: new Error("boom") });
    expect(lines).toHaveLength(2);
    expect(lines.every((line) => line.endsWith("\n"))).toBe(true);
    const [warn, error] = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(warn).toEqual({
      time: "2026-11-22T10:00:00.000Z",
      level: "warn",
      message: "careful",
      tool: "reasoning_tree",
    });
    expect(error).toMatchObject({
      level: "error",
      message: "broken",
      error: { name: "Error", message: "boom", stack: expect.stringContaining("boom") },
    });
  });

  it("survives cyclic fields", () => {
    const { lines, sink } = capture();
    const cyclic: Record<string, unknown> = {};
    cyclic["self"] = cyclic;
    createLogger({ level: "debug", sinks: [sink] }).info("odd", { cyclic });
    expect(JSON.parse(lines[0] ?? "")).toMatchObject({ level: "info", message: "odd" });
  });

  it("masks sensitive field names and scrubs known secrets from every line", () => {
    const { lines, sink } = capture();
    const secrets = createSecretRegistry(["sk-configured-12345"]);
    const logger = createLogger({ level: "info", sinks: [sink, sink], secrets });
    secrets.add("sk-per-request-67890");
    logger.info("calling with sk-configured-12345", {
      api_key: "anything",
      nested: { authorization: "Bearer x", note: "key sk-per-request-67890" },
    });
    secrets.delete("sk-per-request-67890");
    logger.info("after sk-per-request-67890");
    expect(lines).toHaveLength(4);
    expect(lines.join("")).not.toContain("sk-configured-12345");
    expect(JSON.parse(lines[0] ?? "")).toMatchObject({
      message: "calling with [redacted]",
      api_key: "[redacted]",
      nested: { authorization: "[redacted]", note: "key [redacted]" },
    });
    expect(JSON.parse(lines[2] ?? "")).toMatchObject({ message: "after sk-per-request-67890" });
  });
});
