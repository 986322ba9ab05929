import { DeliberateError } from "@deliberate/base";
import type { LanguageModel, ModelRouter } from "@deliberate/providers";

const unusable: LanguageModel = {
  provider: "host",
  modelId: "host",
  generate() {
    // The engine swaps in a replay router for every call; reaching this is a wiring bug.
    return Promise.reject(
      new DeliberateError({
        code: "INTERNAL",
        message: "The host router must be replayed by the engine, not called directly.",
      }),
    );
  },
};

/**
 * Selects host-executed completions: model-backed calls return their prompts
 * to the calling agent (status "needs_completion") and resume via reasoning_submit.
 */
export const hostModelRouter: ModelRouter = {
  provider: "host",
  configured: true,
  forMode: (_mode: string) => unusable,
};
