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
export { analyzePairwiseJudgements, analyzePairwiseMatrix, buildPairwiseMatrix, consistencyRatioThreshold, maxPairwiseItems, saatyRandomIndex } from "./ahp.ts";
export type { InconsistentJudgement, PairwiseAnalysis, PairwiseJudgement, PairwiseJudgementsAnalysis, PairwiseJudgementsInput, PairwiseMatrixInput } from "./ahp.ts";
export {
  bayesianUpdate,
  binaryEntropy,
  conditionalIndependenceAssumption,
  defaultSensitivityDelta,
  multiHypothesisUpdate,
  sensitivityLikelihoodFloor,
  shannonEntropy,
} from "./bayes.ts";
export type { BayesEvidence, BayesianStep, BayesianUpdateInput, BayesianUpdateResult, MultiHypothesisInput, MultiHypothesisResult, SensitivityInterval } from "./bayes.ts";
export { causalTopologicalOrder, defaultMaxCausalPaths, enumerateCausalPaths, findCausalCycle, validateCausalModel, validateCausalStructure } from "./causal-dag.ts";
export type { CausalEdge, CausalGraph, CausalModel, CausalPath, CausalRelationship } from "./causal-dag.ts";
export {
  associationAssumption,
  computeAssociation,
  computeCounterfactual,
  computeIntervention,
  counterfactualAssumption,
  interventionAssumption,
  linearCausalModelAssumptions,
} from "./causal-inference.ts";
export type {
  AssociationEffect,
  AssociationInput,
  AssociationRelation,
  AssociationResult,
  CausalChainLink,
  CausalPathContribution,
  CounterfactualInput,
  CounterfactualResult,
  CounterfactualValue,
  InterventionEffect,
  InterventionInput,
  InterventionResult,
  VariableChange,
} from "./causal-inference.ts";
export { normalizeWeights } from "./criterion-weights.ts";
export type { NormalizeWeightsOptions } from "./criterion-weights.ts";
export { assessCredibility, chainOfCustodyScores, defaultCredibilityWeights, sourceTierScores } from "./credibility.ts";
export type { ChainOfCustody, CredibilityAssessment, CredibilityEvidence, CredibilityInput, CredibilityWeights, EvidenceAssessment, SourceType } from "./credibility.ts";
export { validateDecisionMatrix } from "./decision-matrix.ts";
export type { CriterionDirection, DecisionCriterion, DecisionMatrixInput, ValidatedDecisionMatrix } from "./decision-matrix.ts";
export { pruneGraph } from "./graph-prune.ts";
export type { PrunableNode, PruneGraphInput, PruneGraphResult } from "./graph-prune.ts";
export { backpropagateMcts, bestMctsPath, createMctsTree, expandMctsNode, mctsTreeFromNodes, selectMctsLeaf } from "./mcts-tree.ts";
export type { MctsChildInput, MctsNode, MctsNodeRecord, MctsOptions, MctsPathStep, MctsSelection, MctsTree } from "./mcts-tree.ts";
export { percentile, percentiles } from "./percentiles.ts";
export type { PercentileMethod, PercentilesInput } from "./percentiles.ts";
export { displayScore, rankOptions, scoreKey } from "./ranking.ts";
export type { RankedOption } from "./ranking.ts";
export { topsis } from "./topsis.ts";
export type { TopsisInput, TopsisResult } from "./topsis.ts";
export { defaultExplorationConstant, selectUcb1Child, ucb1 } from "./ucb1.ts";
export type { SelectUcb1ChildInput, Ucb1Choice, Ucb1Input, Ucb1Statistics } from "./ucb1.ts";
export { weightedSum } from "./weighted-sum.ts";
export type { WeightedSumInput, WeightedSumNormalization, WeightedSumResult } from "./weighted-sum.ts";
