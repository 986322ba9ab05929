export { type CommonSettings, defaultHostCompletionTtlSeconds, readCommonSettings } from "./common-settings.ts";
export { configSnapshot, createRuntime, type Runtime, type RuntimeOptions } from "./create-runtime.ts";
export { defaultModules, type ModuleSettings, readModuleEnvironment } from "./default-modules.ts";
export { type ConfigProblem, combineConfigProblems, createEnvReader, type EnvReader, type Environment } from "./env-reader.ts";
export { newErrorId, type PublicErrorBody, privateErrorBody, toPublicError } from "./public-error.ts";
export { type MainProcess, type RunningService, runMain } from "./run-main.ts";
