import type { OfferedToolInput } from "./agent-intent.ts";

/**
 * What an agent can call when an agent-intent request offers no `tools` (the spec's search tool of the Context
 * Engine). The service decides among these, and the client checks decisions against them, so both agree on what a
 * request with no tool list offers.
 */
export const defaultOfferedTools: readonly OfferedToolInput[] = [
  {
    name: "context.fts_search",
    description: "Full-text search over the project's indexed repository chunks and memory bank.",
    input_schema: {
      type: "object",
      properties: { query: { type: "string", minLength: 1, description: "What to search for" } },
      required: ["query"],
    },
  },
];
