import { describe, expect, it } from "vitest";
import { createLogger } from "./logger.ts";

describe("createLogger", () => {
  it("writes one JSON object per line and drops lines below the level", () => {
    const lines: string[] = [];
    const logger = createLogger({ level: "warn", write: (line) => lines.push(line), now: () => new Date("2026-11-22T10:00:00.000Z") });
    logger.debug("hidden");
    logger.info("hidden too");
    logger.warn("careful", { tool: "reasoning_tree", skipped: undefined, message: "not this", level: "debug" });
    logger.error("broken", { error: new Error("boom") });
    expect(lines).toHaveLength(2);
    expect(lines.every((line) => line.endsWith("\n"))).toBe(true);
    const [warn, error] = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(warn).toEqual({ time: "2026-11-22T10:00:00.000Z", level: "warn", message: "careful", tool: "reasoning_tree" });
    expect(error).toMatchObject({ level: "error", message: "broken", error: { name: "Error", message: "boom" } });
  });

  it("survives fields that cannot be serialised", () => {
    const lines: string[] = [];
    const cyclic: Record<string, unknown> = {};
    cyclic["self"] = cyclic;
    createLogger({ level: "debug", write: (line) => lines.push(line) }).info("odd", { cyclic });
    expect(JSON.parse(lines[0] ?? "")).toMatchObject({ level: "info", message: "odd", note: "fields were not serialisable" });
  });
});
