import type { FakeModelRequest, FakeReply } from "@deliberate/providers/testing";
import { answerBySchemaName } from "./fake-answers.ts";

// Scripted answers for the issue-3 tools' modes, shared by their e2e files and
// the keyless e2e test (which answers the same prompts as the calling agent).

const criteria = (value: number) => ({ relevance: value, validity: value, depth: value, novelty: value });

/** Branch ids the compare prompt's schema asks about (its assessments' required keys). */
function assessedIds(request: FakeModelRequest): string[] {
  const properties = (
    request.jsonSchema?.["properties"] as Record<string, { properties?: Record<string, unknown> }> | undefined
  )?.["assessments"]?.properties;
  return Object.keys(properties ?? {});
}

/** Answers for the stateful tools' modes; everything else goes to the harness's answers. */
export function respondStateful(request: FakeModelRequest): FakeReply {
  switch (request.schemaName) {
    case "graph_continuation":
      // Scores alternate 0.2 / 0.8 by request so prune has something to remove.
      return {
        object: {
          content: `Continuation from request ${request.index}`,
          criteria: criteria(request.index % 2 === 0 ? 0.2 : 0.8),
        },
      };
    case "graph_score":
      return {
        object: {
          criteria: { relevance: 0.9, validity: 0.7, depth: 0.5, novelty: 0.3 },
          rationale: "relevant, familiar",
        },
      };
    case "graph_aggregate":
      return { object: { insight: "Cache the dependency layer and split the test suite.", criteria: criteria(0.85) } };
    case "graph_refine":
      return {
        object: {
          critique: "Too vague about which cache.",
          refined_content: "Use a remote build cache keyed by lockfile hash.",
          criteria: criteria(0.9),
        },
      };
    case "graph_finalize":
      return { object: { conclusions: ["Add a remote build cache", "Split the test suite in four"] } };
    case "timeline_branch":
      return {
        object: {
          label: "supplier delay",
          content: "A supplier slips; launch moves to May and marketing is re-planned.",
        },
      };
    case "timeline_compare":
      return {
        object: {
          divergence_points: ["The launch date"],
          assessments: Object.fromEntries(
            assessedIds(request).map((id, index) => [
              id,
              { quality: 0.5 + index * 0.1, assessment: `branch ${index + 1}` },
            ]),
          ),
          convergence_opportunities: ["Beta early, GA late"],
        },
      };
    case "timeline_merge_synthesize":
      return {
        object: {
          merged_content: "Beta in January, general availability in June.",
          conflicts: [{ source: "January", target: "June", kept: "both" }],
        },
      };
    case "timeline_merge_prefer_source":
      return {
        object: {
          merged_content: "Launch in January (source wins).",
          conflicts: [{ source: "January", target: "March", kept: "source" }],
        },
      };
    case "timeline_merge_prefer_target":
      return {
        object: {
          merged_content: "Launch in March (target wins).",
          conflicts: [{ source: "May", target: "March", kept: "target" }],
        },
      };
    case "mcts_expand": {
      const count = Number(/exactly (\d+)/.exec(request.prompt)?.[1] ?? 2);
      return {
        object: {
          steps: Array.from({ length: count }, (_, index) => `Move ${index + 1} after request ${request.index}`),
        },
      };
    }
    case "mcts_evaluate":
      // Deterministic per prompt, always 0.6 to 0.9.
      return {
        object: { value: 0.6 + (request.prompt.length % 4) / 10, reaches_conclusion: false, rationale: "scripted" },
      };
    case "linear_continuation":
      // A detour the session should backtrack from.
      return {
        object: { content: "A detour.", confidence: request.prompt.includes("detour") ? 0.1 : 0.9, next_step: "none" },
      };
    default:
      return answerBySchemaName(request);
  }
}

const detection = (type: string, evidence: string, severity: string) => ({
  type,
  severity,
  confidence: 0.8,
  evidence,
  explanation: `${type} here`,
  remediation: `avoid ${type}`,
});

/** Answers for the analysis modes; everything else goes to the harness's answers. */
export function respondAnalysis(request: FakeModelRequest): FakeReply {
  switch (request.schemaName) {
    case "detect_biases":
      return {
        object: {
          detections: [
            detection(
              "sunk_cost_fallacy",
              "We already spent two years on this rewrite, so we cannot stop now.",
              "high",
            ),
            detection("authority_bias", "our lead says it will work", "medium"),
            detection("overconfidence", "this plan cannot possibly fail", "low"),
          ],
        },
      };
    case "detect_fallacies":
      return {
        object: { detections: [detection("false_dichotomy", "Either we finish it or the product dies", "high")] },
      };
    case "decision_scores":
      return {
        object: {
          criteria: {
            cost: { importance: 2, direction: "cost", scores: { Postgres: 6, SQLite: 1 } },
            scale: { importance: 6, direction: "benefit", scores: { Postgres: 9, SQLite: 3 } },
          },
          notes: "Postgres scales out; SQLite costs nothing to run.",
        },
      };
    case "decision_pairwise":
      return {
        object: {
          judgements: {
            "1": { preferred: "rail", intensity: 3 },
            "2": { preferred: "rail", intensity: 5 },
            "3": { preferred: "bus", intensity: 2 },
          },
          notes: "Rail is fastest.",
        },
      };
    case "decision_stakeholders":
      return {
        object: {
          levels: { "City council": { power_level: 0.9, interest_level: 0.3 } },
          conflicts: ["Residents vs City council on noise"],
          alignments: ["Commuters and Residents want less traffic"],
        },
      };
    case "evidence_likelihoods":
      return {
        object: {
          prior: { value: 0.2, rationale: "base rate of such leaks" },
          items: { "1": { likelihood_if_true: 0.7, likelihood_if_false: 0.35, rationale: "weak" } },
        },
      };
    case "evidence_assessment":
      return {
        object: {
          items: {
            "1": {
              source_type: "anecdotal",
              corroborated_by: [0],
              chain_of_custody: "unknown",
              rationale: "a forum post",
            },
          },
        },
      };
    case "counterfactual_variables":
      return {
        object: {
          intervention_target: { variable: "remote_work", level: 0, change: 2 },
          other_variables: [
            { name: "commute_time", level: 1 },
            { name: "wellbeing", level: 2 },
          ],
          rationale: "Remote days remove commutes.",
        },
      };
    case "counterfactual_links":
      return {
        object: {
          causes: { commute_time: { remote_work: -1.5 }, wellbeing: { remote_work: 0.2, commute_time: -0.4 } },
          rationale: "Commuting wears people down.",
        },
      };
    case "counterfactual_narrative":
      return {
        object: {
          counterfactual_outcome: "Two more remote days would have cut commuting and raised wellbeing.",
          key_differences: ["commute_time -3", "wellbeing +1.6"],
          assumptions: ["Remote days are spent productively"],
          confidence: 0.65,
        },
      };
    default:
      return answerBySchemaName(request);
  }
}
