export { defaultHostCompletionTtlSeconds, readCommonSettings } from "./common-settings.ts";
export { createRuntime } from "./create-runtime.ts";
export { defaultModules, type ModuleSettings } from "./default-modules.ts";
export { createEnvReader, type EnvReader } from "./env-reader.ts";
export { newErrorId, type PublicErrorBody, privateErrorBody, toPublicError } from "./public-error.ts";
export { type RunningService, runMain } from "./run-main.ts";
