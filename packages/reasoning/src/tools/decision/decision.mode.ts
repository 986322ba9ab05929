import { type CriterionDirection, criterionDirectionSchema, type DecisionType } from "@deliberate/contracts";
import { z } from "zod";
import { defineMode, type ModeDefinition, type ModeDeclaration } from "@deliberate/engine";

/** The `decision` mode and its default model settings, declared on every `decision` definition (the engine layers configuration and runtime overrides on top). */
export const decisionModeDeclaration: ModeDeclaration = {
  mode: "decision",
  settings: { temperature: 0.6, maxTokens: 4000, thinkingBudget: 8192, stream: true },
};

/** Criteria the model proposes when the caller gives none. */
export const proposedCriteriaLimits = { min: 2, max: 8 } as const;
/** Stakeholders the model proposes when the caller gives none. */
export const proposedStakeholderLimits = { min: 3, max: 10 } as const;

const scoreScale = { min: 0, max: 10 } as const;

function addIssue(context: z.RefinementCtx, path: Array<string | number>, message: string): void {
  context.addIssue({ code: "custom", path, message });
}

/**
 * Proposed names as one entry each: keys that differ only in case or surrounding spaces (which JSON Schema
 * cannot tell apart: it compares property names exactly) name one thing, so the first is kept.
 */
function distinctNames<T>(entries: ReadonlyArray<[string, T]>): Array<[string, T]> {
  const seen = new Set<string>();
  return entries.filter(([name]) => {
    const key = name.trim().toLowerCase();
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** What the scoring call (weighted, topsis) must supply: only what the caller left out. */
export interface ScoringNeeds {
  type: Extract<DecisionType, "weighted" | "topsis">;
  question: string | undefined;
  context: string | undefined;
  options: readonly string[];
  /** The caller's criteria, or undefined when the model proposes them. */
  criteria:
    | ReadonlyArray<{ name: string; weight?: number | undefined; direction?: CriterionDirection | undefined }>
    | undefined;
  needImportance: boolean;
  needScores: boolean;
  /** Names of caller criteria whose direction the model judges (all proposed criteria get one). */
  needDirection: readonly string[];
}

export interface ScoringAnswer {
  criteria: Array<{
    name: string;
    importance?: number | undefined;
    direction?: CriterionDirection | undefined;
    scores?: Array<{ option: string; score: number }> | undefined;
  }>;
  notes: string;
}

/** A name the model gives: not blank (it is trimmed when the answer is read). */
const nameSchema = () => z.string().regex(/\S/, "must not be blank");

/** One entry per given name: an object with exactly these keys (all required). */
function keyed<T extends z.ZodType>(names: readonly string[], value: (name: string) => T) {
  return z.object(Object.fromEntries(names.map((name) => [name, value(name)])) as Record<string, T>);
}

/**
 * Judgements for a weighted or TOPSIS decision: criteria (when not given),
 * importance on 1–9 (when weights are not given), direction (when not
 * given) and a 0–10 level per option per criterion (when scores are not
 * given). Every number the model gives is a judgement; the math is code.
 *
 * The answer is keyed, so its schema says everything the check needs:
 * `criteria` has one key per given criterion (or 2–8 keys the model names),
 * each with `scores` keyed by every option. Proposed names that differ only
 * in case or surrounding spaces are one criterion (the first is kept).
 */
export function createScoringMode(needs: ScoringNeeds): ModeDefinition<ScoringNeeds, ScoringAnswer> {
  const given = needs.criteria;
  const level = z.number().min(scoreScale.min).max(scoreScale.max);
  const criterionItem = (name: string | undefined) =>
    z.object({
      ...(needs.needImportance
        ? { importance: z.number().int().min(1).max(9).describe("Importance 1 (minor) .. 9 (dominant)") }
        : {}),
      ...(name === undefined || needs.needDirection.includes(name)
        ? { direction: criterionDirectionSchema.describe("benefit = more is better, cost = less is better") }
        : {
            direction: criterionDirectionSchema
              .optional()
              .describe("benefit = more is better, cost = less is better (given: leave out)"),
          }),
      ...(needs.needScores
        ? {
            scores: keyed(needs.options, () => level).describe(
              "One level per option, 0..10: how much of this criterion the option has (for a cost criterion, 10 = most costly)",
            ),
          }
        : {}),
    });
  const criteria =
    given === undefined
      ? z
          .record(nameSchema(), criterionItem(undefined))
          .superRefine((record, context) => {
            const count = Object.keys(record).length;
            if (count < proposedCriteriaLimits.min || count > proposedCriteriaLimits.max) {
              addIssue(
                context,
                [],
                `propose between ${proposedCriteriaLimits.min} and ${proposedCriteriaLimits.max} criteria, got ${count}`,
              );
            }
          })
          .meta({ minProperties: proposedCriteriaLimits.min, maxProperties: proposedCriteriaLimits.max })
          .describe("The criteria you propose, keyed by name")
      : keyed(
          given.map((criterion) => criterion.name),
          (name) => criterionItem(name),
        ).describe("One entry per listed criterion, keyed by its name");
  const output = z
    .object({
      criteria,
      notes: z.string().describe("Short justification of the judgements"),
    })
    .transform(
      (answer): ScoringAnswer => ({
        criteria: distinctNames(
          Object.entries(
            answer.criteria as Record<
              string,
              { importance?: number; direction?: CriterionDirection; scores?: Record<string, number> }
            >,
          ),
        ).map(([name, criterion]) => ({
          name: name.trim(),
          ...(criterion.importance !== undefined ? { importance: criterion.importance } : {}),
          ...(criterion.direction !== undefined ? { direction: criterion.direction } : {}),
          ...(criterion.scores !== undefined
            ? { scores: needs.options.map((option) => ({ option, score: criterion.scores?.[option] as number })) }
            : {}),
        })),
        notes: answer.notes,
      }),
    );

  const asks: string[] = [];
  if (given === undefined) {
    asks.push(
      `Propose ${proposedCriteriaLimits.min}-${proposedCriteriaLimits.max} distinct, non-overlapping criteria that matter for this decision, each with its direction (benefit = more is better, cost = less is better).`,
    );
  }
  if (needs.needImportance)
    asks.push(
      "Rate each criterion's importance from 1 (minor) to 9 (dominant); weights are derived from these in code.",
    );
  if (given !== undefined && needs.needDirection.length > 0)
    asks.push(`Give the direction of: ${needs.needDirection.join(", ")}.`);
  if (needs.needScores) {
    asks.push(
      "For every criterion, give every option a level from 0 to 10: how much of that criterion the option has. For a cost criterion a high level means more cost (worse); the direction is applied in code, so do not invert it yourself.",
    );
  }

  return defineMode({
    ...decisionModeDeclaration,
    name: "decision_scores",
    description: "Judgements for a multi-criteria decision: criteria, importances, directions and 0-10 levels.",
    system: [
      "You supply judgements for a multi-criteria decision analysis run by another AI agent.",
      "Give only the judgements asked for. Do not compute totals, rankings or weights: the arithmetic is done in code.",
      "Be consistent: the same evidence should give the same level across options. Base levels on what is stated or well known; note real uncertainty in notes.",
    ].join("\n"),
    prompt: (input: ScoringNeeds) =>
      [
        `Decision (${input.type}): ${input.question ?? "choose the best option"}`,
        input.context ? `Context: ${input.context}` : "",
        `Options: ${input.options.map((option) => JSON.stringify(option)).join(", ")}`,
        input.criteria === undefined
          ? ""
          : `Criteria: ${input.criteria
              .map(
                (criterion) =>
                  `${JSON.stringify(criterion.name)}${criterion.direction ? ` (${criterion.direction})` : ""}${criterion.weight !== undefined ? ` weight ${criterion.weight}` : ""}`,
              )
              .join(", ")}`,
        "",
        ...asks,
      ]
        .filter((line, index, lines) => line !== "" || (index > 0 && lines[index - 1] !== ""))
        .join("\n"),
    output,
  }) as ModeDefinition<ScoringNeeds, ScoringAnswer>;
}

/** Input of the pairwise-judgement call. */
export interface PairwiseNeeds {
  question: string | undefined;
  context: string | undefined;
  options: readonly string[];
  criteria:
    | ReadonlyArray<{ name: string; weight?: number | undefined; direction?: CriterionDirection | undefined }>
    | undefined;
  /** Every unordered pair of option indexes, i < j, in row order. */
  pairs: ReadonlyArray<readonly [number, number]>;
}

export interface PairwiseAnswer {
  judgements: Array<{ pair: number; preferred: string; intensity: number }>;
  notes: string;
}

/** Saaty's verbal scale, shown to the model. */
export const saatyScale =
  "1 = equal, 3 = moderately preferred, 5 = strongly preferred, 7 = very strongly preferred, 9 = extremely preferred (2, 4, 6, 8 in between)";

/**
 * One Saaty 1–9 judgement per pair of options; the matrix, priorities and
 * consistency are computed in code. The answer is keyed by pair number, and
 * each pair's `preferred` is an enum of its two options: the schema is the
 * whole check.
 */
export function createPairwiseMode(needs: PairwiseNeeds): ModeDefinition<PairwiseNeeds, PairwiseAnswer> {
  const output = z
    .object({
      judgements: keyed(
        needs.pairs.map((_, index) => String(index + 1)),
        (key) => {
          const [a, b] = needs.pairs[Number(key) - 1] as readonly [number, number];
          return z.object({
            preferred: z
              .enum([needs.options[a] as string, needs.options[b] as string])
              .describe("The option of the pair that is preferred (either one when equal)"),
            intensity: z.number().int().min(1).max(9).describe(saatyScale),
          });
        },
      ).describe("One judgement per pair, keyed by the pair's number from the list"),
      notes: z.string().describe("Short justification of the judgements"),
    })
    .transform(
      (answer): PairwiseAnswer => ({
        judgements: needs.pairs.map((_, index) => {
          const judgement = (answer.judgements as Record<string, { preferred: string; intensity: number }>)[
            String(index + 1)
          ] as { preferred: string; intensity: number };
          return { pair: index + 1, preferred: judgement.preferred, intensity: judgement.intensity };
        }),
        notes: answer.notes,
      }),
    );
  return defineMode({
    ...decisionModeDeclaration,
    name: "decision_pairwise",
    description: "Saaty 1-9 pairwise comparison judgements between options.",
    system: [
      "You compare options pairwise for an Analytic Hierarchy Process run by another AI agent.",
      `For each numbered pair say which option is preferred and how strongly on Saaty's scale: ${saatyScale}.`,
      "Judge each pair on its own merits but keep judgements transitive where you can (if A beats B and B beats C, A should beat C by at least as much). Do not compute priorities: that is done in code, along with the consistency ratio.",
    ].join("\n"),
    prompt: (input: PairwiseNeeds) =>
      [
        `Decision: ${input.question ?? "choose the best option"}`,
        input.context ? `Context: ${input.context}` : "",
        input.criteria === undefined
          ? ""
          : `Judge overall preference, weighing these criteria: ${input.criteria
              .map(
                (criterion) =>
                  `${criterion.name}${criterion.weight !== undefined ? ` (weight ${criterion.weight})` : ""}${criterion.direction === "cost" ? " (less is better)" : ""}`,
              )
              .join(", ")}`,
        "Pairs:",
        ...input.pairs.map(
          ([a, b], index) => `${index + 1}. ${JSON.stringify(input.options[a])} vs ${JSON.stringify(input.options[b])}`,
        ),
      ]
        .filter((line) => line !== "")
        .join("\n"),
    output,
  }) as ModeDefinition<PairwiseNeeds, PairwiseAnswer>;
}

/** Input of the stakeholder call. */
export interface StakeholderNeeds {
  topic: string;
  context: string | undefined;
  options: readonly string[] | undefined;
  /** The caller's stakeholders, or undefined when the model identifies them. */
  stakeholders:
    | ReadonlyArray<{
        name: string;
        role?: string | undefined;
        power_level?: number | undefined;
        interest_level?: number | undefined;
      }>
    | undefined;
  /** Caller stakeholders missing a power or interest level. */
  missingLevels: readonly string[];
}

export interface StakeholderAnswer {
  stakeholders?: Array<{ name: string; role: string; power_level: number; interest_level: number }> | undefined;
  levels?: Array<{ name: string; power_level: number; interest_level: number }> | undefined;
  conflicts: string[];
  alignments: string[];
}

/**
 * Stakeholder judgements: who they are (when not given), power and interest
 * levels 0..1 (only where missing), and the conflicts and alignments between
 * them. Quadrants are computed from the levels in code. Stakeholders are
 * keyed by name (3–10 of them when proposed), missing levels keyed by the
 * given names; proposed names that differ only in case or surrounding spaces
 * are one stakeholder (the first is kept).
 */
export function createStakeholderMode(needs: StakeholderNeeds): ModeDefinition<StakeholderNeeds, StakeholderAnswer> {
  const level = z.number().min(0).max(1);
  const levels = () => ({
    power_level: level.describe("Power over the outcome, 0..1"),
    interest_level: level.describe("Interest in the outcome, 0..1"),
  });
  const fields = {
    ...(needs.stakeholders === undefined
      ? {
          stakeholders: z
            .record(nameSchema(), z.object({ role: z.string(), ...levels() }))
            .superRefine((record, context) => {
              const names = Object.keys(record);
              if (names.length < proposedStakeholderLimits.min || names.length > proposedStakeholderLimits.max) {
                addIssue(
                  context,
                  [],
                  `identify between ${proposedStakeholderLimits.min} and ${proposedStakeholderLimits.max} stakeholders, got ${names.length}`,
                );
              }
            })
            .meta({ minProperties: proposedStakeholderLimits.min, maxProperties: proposedStakeholderLimits.max })
            .describe("The stakeholders, keyed by name"),
        }
      : {}),
    ...(needs.missingLevels.length > 0
      ? {
          levels: keyed(needs.missingLevels, () => z.object(levels())).describe(
            "Power and interest of each listed stakeholder, keyed by name",
          ),
        }
      : {}),
    conflicts: z.array(z.string()).describe("Conflicts of interest between named stakeholders"),
    alignments: z.array(z.string()).describe("Shared interests between named stakeholders"),
  };
  const output = z.object(fields).transform((raw): StakeholderAnswer => {
    const answer = raw as {
      stakeholders?: Record<string, { role: string; power_level: number; interest_level: number }>;
      levels?: Record<string, { power_level: number; interest_level: number }>;
      conflicts: string[];
      alignments: string[];
    };
    return {
      ...(answer.stakeholders !== undefined
        ? {
            stakeholders: distinctNames(Object.entries(answer.stakeholders)).map(([name, stakeholder]) => ({
              name: name.trim(),
              ...stakeholder,
            })),
          }
        : {}),
      ...(answer.levels !== undefined
        ? {
            levels: needs.missingLevels.map((name) => ({
              name,
              ...(answer.levels?.[name] as { power_level: number; interest_level: number }),
            })),
          }
        : {}),
      conflicts: answer.conflicts,
      alignments: answer.alignments,
    };
  });
  return defineMode({
    ...decisionModeDeclaration,
    name: "decision_stakeholders",
    description: "Stakeholders with power and interest levels, and their conflicts and alignments.",
    system: [
      "You map stakeholders for another AI agent.",
      "Power = ability to affect the outcome; interest = how much the outcome affects them or they care. Both are levels from 0 to 1 (0.5 is the line between low and high). Quadrants are computed from your levels in code.",
      "Conflicts and alignments name the stakeholders involved and what they disagree or agree on; keep each to one sentence.",
    ].join("\n"),
    prompt: (input: StakeholderNeeds) =>
      [
        `Topic: ${input.topic}`,
        input.context ? `Context: ${input.context}` : "",
        input.options ? `Options under consideration: ${input.options.join(", ")}` : "",
        input.stakeholders === undefined
          ? `Identify the ${proposedStakeholderLimits.min}-${proposedStakeholderLimits.max} most relevant stakeholders with their role, power_level and interest_level.`
          : `Stakeholders:\n${input.stakeholders
              .map(
                (stakeholder) =>
                  `- ${stakeholder.name}${stakeholder.role ? ` (${stakeholder.role})` : ""}: power ${stakeholder.power_level ?? "?"}, interest ${stakeholder.interest_level ?? "?"}`,
              )
              .join("\n")}`,
        input.missingLevels.length > 0
          ? `Give power_level and interest_level (both) for: ${input.missingLevels.join(", ")}.`
          : "",
        "List the conflicts and alignments between the stakeholders.",
      ]
        .filter((line) => line !== "")
        .join("\n"),
    output,
  }) as ModeDefinition<StakeholderNeeds, StakeholderAnswer>;
}
