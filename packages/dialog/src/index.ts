export { dialogModule } from "./module.ts";
export type { DialogRepositories } from "./dialog-context.ts";
export { builtinPresets } from "./presets/builtin-presets.ts";
