import type { LanguageModel, ModelRouter } from "@deliberate/providers";
import type { CallScope } from "@deliberate/store";

/**
 * The router a call's handler sees with server-side models: before each model
 * call it commits what the call wrote so far, so no transaction is ever held
 * while a model answers (a multi-step call such as a preset keeps its finished
 * steps; a failure rolls back only the unfinished one).
 */
export function committingBeforeModelCalls(router: ModelRouter, scope: CallScope): ModelRouter {
  // The commit in progress: model calls made meanwhile wait for it too, so concurrent calls start in the order they are made.
  let committing: Promise<void> | undefined;
  const forMode = (mode: string): LanguageModel => {
    const model = router.forMode(mode);
    return {
      provider: model.provider,
      modelId: model.modelId,
      generate: (generateOptions) => {
        if (scope.hasOpenTransaction()) {
          const commit = scope.commit().finally(() => {
            if (committing === commit) committing = undefined;
          });
          committing = commit;
        }
        return committing === undefined
          ? model.generate(generateOptions)
          : committing.then(() => model.generate(generateOptions));
      },
    };
  };
  // A plain object, not Object.create(router): a router made per request (e.g. the agent intent's) would
  // otherwise become a prototype on every call, which V8 makes expensive.
  return {
    provider: router.provider,
    configured: router.configured,
    ...(router.unavailableReason !== undefined ? { unavailableReason: router.unavailableReason } : {}),
    forMode,
  };
}
