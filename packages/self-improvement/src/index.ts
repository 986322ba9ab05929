export { createSelfImprovementModule, cycleTaskName, isSelfImprovementModule } from "./module.ts";
export type { SelfImprovementModuleOptions } from "./module.ts";
export { parseSelfImprovementEnvironment } from "./config.ts";
export type { SelfImprovementOptions } from "./config.ts";
export type { SelfImprovementControl } from "./control.ts";
export type { SelfImprovementRepositories } from "./store/repositories/self-improvement.repository.ts";
export { actionSchema, circuitBreakerSchema, configSchema, diagnosisSchema, diagnosticsQuerySchema, healthReportSchema, historyEntrySchema, historyQuerySchema, pauseRequestSchema, pauseResultSchema, reasonRequestSchema, statusSchema } from "./api-schemas.ts";
