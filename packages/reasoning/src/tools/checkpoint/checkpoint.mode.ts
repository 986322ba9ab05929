import type { ModeDeclaration } from "@deliberate/engine";

/** The `checkpoint` mode and its default model settings, declared on every `checkpoint` definition (the engine layers configuration and runtime overrides on top). */
export const checkpointModeDeclaration: ModeDeclaration = {
  mode: "checkpoint",
  settings: { temperature: 0.7, maxTokens: 2000 },
};
