import { z } from "zod";

import { defineMode, type ModeDefinition } from "@deliberate/engine";

export interface ResolutionPair {
  keep: { name: string; type: string; observations: readonly string[] };
  merge: { name: string; type: string; observations: readonly string[] };
  reason: string;
}

export interface ResolutionInput {
  goal: string;
  pairs: readonly ResolutionPair[];
}

export interface ResolutionAnswer {
  decisions: Array<{ pair: number; same: boolean; reason: string }>;
}

function describe(entity: ResolutionPair["keep"]): string {
  return `${entity.name} [${entity.type}]${entity.observations.length > 0 ? `: ${entity.observations.slice(0, 3).join("; ")}` : ""}`;
}

/** Only the entity pairs that names alone cannot settle, one decision per pair. */
export function createResolutionMode(pairCount: number): ModeDefinition<ResolutionInput, ResolutionAnswer> {
  const output = z
    .object({
      decisions: z
        .array(
          z.object({
            pair: z.number().int().min(0).max(pairCount - 1).describe("The pair's number from the list"),
            same: z.boolean().describe("True when both names refer to the same thing"),
            reason: z.string().min(1).max(300),
          }),
        )
        .min(pairCount)
        .max(pairCount),
    })
    .superRefine((answer, context) => {
      const seen = new Set<number>();
      answer.decisions.forEach((decision, index) => {
        if (seen.has(decision.pair)) context.addIssue({ code: "custom", path: ["decisions", index, "pair"], message: `pair ${decision.pair} is decided twice; decide each pair once` });
        seen.add(decision.pair);
      });
    });
  return defineMode<ResolutionInput, ResolutionAnswer>({
    mode: "knowledge_graph_resolve",
    name: "knowledge_graph_resolution",
    description: "Whether each pair of entity names refers to the same thing",
    system:
      "You decide whether two entity names in a knowledge graph refer to the same real-world thing. Judge from the names, types and observations given. Answer same=true only when they are clearly the same thing (a plural, an acronym, a spelling variant, a shorter form of the same name); when in doubt, answer false.",
    prompt: (input) =>
      [`Goal of the session: ${input.goal}`, "", "Pairs:", ...input.pairs.map((pair, index) => `${index}. ${describe(pair.keep)}  <->  ${describe(pair.merge)}  (${pair.reason})`)].join("\n"),
    output,
  });
}
