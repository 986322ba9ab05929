/**
 * Pure numeric algorithms behind the reasoning tools, computed in code and
 * never asked of a model: every number is reproducible from the inputs, ties
 * are broken deterministically (by input order), and bad input throws an
 * INVALID_INPUT `DeliberateError` whose issues name the field and the fix.
 *
 * Data fields use the snake_case names of the tool schemas (spec section 3)
 * and the store, so tool inputs pass straight through and error fields name
 * the caller's own fields. Everything is pure except `expandMctsNode` and
 * `backpropagateMcts`, which update an MCTS tree in place in O(depth) and
 * return the nodes they changed.
 */
export { analyzePairwiseJudgements, analyzePairwiseMatrix, consistencyRatioThreshold } from "./ahp.ts";
export type { PairwiseAnalysis } from "./ahp.ts";
export { bayesianUpdate, binaryEntropy, conditionalIndependenceAssumption } from "./bayes.ts";
export { validateCausalModel } from "./causal-dag.ts";
export type { CausalEdge, CausalGraph, CausalModel } from "./causal-dag.ts";
export { computeAssociation, computeCounterfactual, computeIntervention } from "./causal-inference.ts";
export type { InterventionResult } from "./causal-inference.ts";
export { assessCredibility, chainOfCustodyScores, sourceTierScores } from "./credibility.ts";
export type { CredibilityEvidence } from "./credibility.ts";
export { pruneGraph } from "./graph-prune.ts";
export {
  backpropagateMcts,
  bestMctsPath,
  createMctsTree,
  expandMctsNode,
  mctsTreeFromNodes,
  selectMctsLeaf,
} from "./mcts-tree.ts";
export type { MctsNode, MctsPathStep, MctsTree } from "./mcts-tree.ts";
export { percentiles } from "./percentiles.ts";
export { rankOptions } from "./ranking.ts";
export type { RankedOption } from "./ranking.ts";
export { topsis } from "./topsis.ts";
export { weightedSum } from "./weighted-sum.ts";
