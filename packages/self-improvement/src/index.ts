export { createSelfImprovementModule, cycleTaskName, syncTaskName } from "./module.ts";
export type { SelfImprovementModule, SelfImprovementModuleOptions } from "./module.ts";
export {
  defaultAllowlist,
  defaultSelfImprovementConfig,
  parseSelfImprovementEnvironment,
  resolveSelfImprovementConfig,
  selfImprovementEnvironment,
} from "./config.ts";
export type {
  Allowlist,
  AllowlistEntry,
  AnalyzerConfig,
  CircuitBreakerConfig,
  ExecutorConfig,
  LeaseConfig,
  LearnerConfig,
  MonitorConfig,
  SelfImprovementConfig,
  SelfImprovementOptions,
} from "./config.ts";
export { createSelfImprovementControl, parseDuration } from "./control.ts";
export type { CircuitBreakerReport, ControlOptions, HistoryEntry, SelfImprovementControl, SelfImprovementStatus } from "./control.ts";
export { describeBlock, hasServerModel, readHealth, runCycle } from "./loop.ts";
export type { BlockReason, CycleDependencies, CycleResult, Evaluation } from "./loop.ts";
export { buildHealthReport, compareTriggers, triggersOf } from "./monitor.ts";
export type { Baseline, HealthReport, MetricFigures, MonitorInput, Trigger } from "./monitor.ts";
export { exponentialMovingAverage, snapshotOf } from "./metrics.ts";
export type { MetricsSnapshot } from "./metrics.ts";
export { deviationPercent, severityFromDeviation } from "./severity.ts";
export { checkAllowlist, settingFitsScope, stepsWithinBounds, stepValue } from "./allowlist.ts";
export type { AllowlistVerdict, ProposedChange } from "./allowlist.ts";
export { breakerAt, breakerRemainingMs, closedBreaker, recordBreakerFailure, recordBreakerSuccess } from "./circuit-breaker.ts";
export type { BreakerState } from "./circuit-breaker.ts";
export { lessonOf, measureReward, rewardWeights } from "./learner.ts";
export type { RewardInput, RewardMeasurement } from "./learner.ts";
export { diagnoseByRules, rules } from "./analyzer/rules.ts";
export type { Rule } from "./analyzer/rules.ts";
export { diagnoseWithModel, diagnosisAnswerSchema, diagnosisModeDeclaration, diagnosisModeId } from "./analyzer/model-analyzer.ts";
export type { AnalysisInput, DiagnosisDraft, Lesson, TargetOption } from "./analyzer/analysis-input.ts";
export { applyDiagnosis, executionBlock, rollbackAction } from "./executor.ts";
export type { ExecutionBlock, ExecutorDependencies } from "./executor.ts";
export { createOverrideSettingsSource } from "./settings-source.ts";
export type { OverrideSettingsSource } from "./settings-source.ts";
export { createSelfImprovementRepositories, createSelfImprovementRepository } from "./store/repository.ts";
export type { LeaseState, SelfImprovementRepositories, SelfImprovementRepository } from "./store/repository.ts";
export { selfImprovementMigrations } from "./store/migrations/index.ts";
export {
  actionSchema,
  baselineSchema,
  circuitBreakerSchema,
  configSchema,
  diagnosisSchema,
  diagnosticsQuerySchema,
  healthReportSchema,
  historyEntrySchema,
  historyQuerySchema,
  metricsSnapshotSchema,
  pauseRequestSchema,
  pauseResultSchema,
  reasonRequestSchema,
  statusSchema,
  suggestedActionSchema,
  triggerSchema,
} from "./api-schemas.ts";
export { runSelfImproveCommand, selfImproveUsage } from "./cli/self-improve-command.ts";
export type { CommandOutput } from "./cli/self-improve-command.ts";
export type {
  ActionRecord,
  ActionStatus,
  CycleOutcome,
  CycleRecord,
  DiagnosisRecord,
  DiagnosisStatus,
  LearningRecord,
  LessonVerdict,
  MetricComparison,
  OverrideRecord,
  SuggestedAction,
} from "./records.ts";
export { actionStatuses, diagnosisStatuses } from "./records.ts";
export { adjustableSettings, analyzerChoices, engineScope, loopModes, metricNames, severities, targetLabel } from "./types.ts";
export type { AdjustableSetting, AnalyzerChoice, Direction, InvocationSample, LoopMode, MetricName, Severity } from "./types.ts";
