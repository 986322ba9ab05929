import { z } from "zod";

import { defineMode, type ModeDefinition, type ModeDeclaration } from "@deliberate/engine";

/** The `knowledge_graph_resolve` mode and its default model settings, declared on its definitions (the engine layers configuration and runtime overrides on top). */
export const resolutionModeDeclaration: ModeDeclaration = {
  mode: "knowledge_graph_resolve",
  settings: { temperature: 0, maxTokens: 1200 },
};

export interface ResolutionPair {
  keep: { name: string; type: string; observations: readonly string[] };
  merge: { name: string; type: string; observations: readonly string[] };
  reason: string;
}

export interface ResolutionInput {
  goal: string;
  pairs: readonly ResolutionPair[];
}

/** One decision per pair, keyed by the pair's id (`pair_0`, `pair_1`, ...). */
export interface ResolutionAnswer {
  decisions: Record<string, { same: boolean; reason: string }>;
}

/** The key of pair `index` in the answer. */
export function pairKey(index: number): string {
  return `pair_${index}`;
}

function describe(entity: ResolutionPair["keep"]): string {
  return `${entity.name} [${entity.type}]${entity.observations.length > 0 ? `: ${entity.observations.slice(0, 3).join("; ")}` : ""}`;
}

/**
 * Only the entity pairs that names alone cannot settle. The answer has one
 * required key per pair, so following the schema decides each pair exactly
 * once (nothing for the validator to check beyond the schema).
 */
export function createResolutionMode(pairCount: number): ModeDefinition<ResolutionInput, ResolutionAnswer> {
  const decision = z.object({
    same: z.boolean().describe("True when both names refer to the same thing"),
    reason: z.string().min(1).max(300),
  });
  const output = z.object({
    decisions: z
      .strictObject(Object.fromEntries(Array.from({ length: pairCount }, (_, index) => [pairKey(index), decision])))
      .describe("One decision per pair, under the pair's id"),
  }) as unknown as z.ZodType<ResolutionAnswer>;
  return defineMode<ResolutionInput, ResolutionAnswer>({
    ...resolutionModeDeclaration,
    name: "knowledge_graph_resolution",
    description: "Whether each pair of entity names refers to the same thing",
    system:
      "You decide whether two entity names in a knowledge graph refer to the same real-world thing. Judge from the names, types and observations given. Answer same=true only when they are clearly the same thing (a plural, an acronym, a spelling variant, a shorter form of the same name); when in doubt, answer false. Decide every pair under its id.",
    prompt: (input) =>
      [
        `Goal of the session: ${input.goal}`,
        "",
        "Pairs:",
        ...input.pairs.map(
          (pair, index) => `${pairKey(index)}: ${describe(pair.keep)}  <->  ${describe(pair.merge)}  (${pair.reason})`,
        ),
      ].join("\n"),
    output,
  });
}
