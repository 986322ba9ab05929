export { createSelfImprovementModule, cycleTaskName } from "./module.ts";
export type { SelfImprovementModuleOptions } from "./module.ts";
export { selfImprovementEnvironment } from "./config.ts";
export type { SelfImprovementOptions } from "./config.ts";
export type { SelfImprovementRepositories } from "./store/repositories/self-improvement.repository.ts";
