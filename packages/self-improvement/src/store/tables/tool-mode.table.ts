/** Which modes a tool's calls were seen to ask (from the engine's invocation events). */
export interface ToolModeTable {
  tool: string;
  mode: string;
  calls: number;
  first_seen_at: string;
  last_seen_at: string;
}
