import { isClientError } from "../errors.ts";
import type { CoordinatorPhase } from "./bounds.ts";
import { classifyFailure, type FailureKind, failureOf, type ReasoningFailure } from "./fallback.ts";

/** Thrown inside a reasoning interaction: it stopped at a point where the matrix decides. */
export class Fallback extends Error {
  constructor(
    readonly kind: FailureKind,
    readonly detail: string,
    readonly code?: string,
    readonly where?: { phase: CoordinatorPhase; deadlineMs: number },
  ) {
    super(detail);
  }
}

/** The failure record of an error thrown inside a reasoning interaction. */
export function failureFrom(
  error: unknown,
  fallbackWhere?: { phase: CoordinatorPhase; deadlineMs: number },
): ReasoningFailure {
  if (error instanceof Fallback) return failureOf(error.kind, error.detail, error.code, error.where ?? fallbackWhere);
  const kind = classifyFailure(error);
  return failureOf(
    kind,
    error instanceof Error ? error.message : String(error),
    isClientError(error) ? error.code : undefined,
    kind === "timeout" ? fallbackWhere : undefined,
  );
}
