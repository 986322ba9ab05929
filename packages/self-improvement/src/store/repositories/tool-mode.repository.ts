import type { DatabaseExecutor } from "../tables.ts";

/** Which modes each tool asks, as observed. */
export function createToolModeRepository(db: DatabaseExecutor) {
  return {
    /** Adds observed calls of `tool` that asked `mode`. */
    async observe(input: { tool: string; mode: string; calls: number; now: string }): Promise<void> {
      await db
        .insertInto("self_improvement_tool_modes")
        .values({
          tool: input.tool,
          mode: input.mode,
          calls: input.calls,
          first_seen_at: input.now,
          last_seen_at: input.now,
        })
        .onConflict((conflict) =>
          conflict.columns(["tool", "mode"]).doUpdateSet((eb) => ({
            calls: eb("self_improvement_tool_modes.calls", "+", input.calls),
            last_seen_at: input.now,
          })),
        )
        .execute();
    },
    /** Tool -> its modes, most used first. */
    async all(): Promise<Map<string, string[]>> {
      const rows = await db
        .selectFrom("self_improvement_tool_modes")
        .selectAll()
        .orderBy("tool")
        .orderBy("calls", "desc")
        .orderBy("mode")
        .execute();
      const map = new Map<string, string[]>();
      for (const row of rows) map.set(row.tool, [...(map.get(row.tool) ?? []), row.mode]);
      return map;
    },
  };
}
