import type { PendingPrompt } from "@deliberate/contracts";

/**
 * Thrown by the host-executed model when a prompt has no recorded answer yet.
 * The engine catches it, persists the call and returns the prompts to the caller.
 * Not a failure: it never reaches a caller as an error.
 */
export class CompletionNeeded extends Error {
  readonly prompts: PendingPrompt[];

  constructor(prompts: PendingPrompt[]) {
    super(`${prompts.length} prompt(s) need a completion from the calling agent`);
    this.name = "CompletionNeeded";
    this.prompts = prompts;
  }

  static isInstance(value: unknown): value is CompletionNeeded {
    return value instanceof CompletionNeeded;
  }

  /** Several independent suspensions become one step with all their prompts. */
  static merge(suspensions: readonly CompletionNeeded[]): CompletionNeeded {
    return new CompletionNeeded(suspensions.flatMap((suspension) => suspension.prompts));
  }
}
