import { type ClientErrorCode, DeliberateClientError } from "../errors.ts";
import type { CoordinatorPhase } from "./bounds.ts";

/**
 * The error taxonomy of the host side (§1.5.2): where a reasoning attempt
 * failed. `max_iterations` and `low_confidence` are statuses, not errors,
 * but have their own rows.
 */
export const failureKinds = [
  "connection",
  "handshake",
  "capability",
  "request",
  "timeout",
  "failed",
  "max_iterations",
  "malformed",
  "low_confidence",
] as const;
export type FailureKind = (typeof failureKinds)[number];

/** What the host does for one kind of failure (§1.5.2). */
export interface FallbackRule {
  /**
   * `standard`: run the host's standard processing and present its answer;
   * `partial_or_standard`: present the last coherent (partial) answer if there is one, else standard;
   * `answer_with_disclaimer`: present the reasoning answer, hedged (optionally with a standard answer to compare).
   */
  action: "standard" | "partial_or_standard" | "answer_with_disclaimer";
  /** What the user is told (never the raw server error). */
  userMessage: string;
  /** How loudly the host should log it. */
  log: "error" | "warn" | "info";
}

/**
 * The fallback matrix. Every row ends the reasoning session when one was
 * opened (endSession is always attempted; best effort after a timeout or a
 * lost connection, where the server's idle expiry is the backstop).
 */
export const fallbackMatrix: Readonly<Record<FailureKind, FallbackRule>> = {
  connection: {
    action: "standard",
    userMessage: "I couldn't connect to the advanced reasoning module, so I'm using my standard approach.",
    log: "error",
  },
  handshake: {
    action: "standard",
    userMessage: "The advanced reasoning module isn't responding as expected, so I'm using my standard approach.",
    log: "error",
  },
  capability: {
    action: "standard",
    userMessage: "Advanced reasoning isn't available for this request, so I'm using my standard approach.",
    log: "info",
  },
  request: {
    action: "standard",
    userMessage: "I couldn't start the advanced analysis for this request, so I'm using my standard approach.",
    log: "warn",
  },
  timeout: {
    action: "standard",
    userMessage: "The advanced reasoning module took too long, so I'm trying my standard approach.",
    log: "warn",
  },
  failed: {
    action: "standard",
    userMessage: "I ran into an issue during the advanced analysis, so I'm using my standard approach.",
    log: "error",
  },
  max_iterations: {
    action: "partial_or_standard",
    userMessage:
      "I analyzed this extensively but couldn't reach a final conclusion within my operational limits. Could we simplify the question or focus on one aspect?",
    log: "warn",
  },
  malformed: {
    action: "standard",
    userMessage: "Something went wrong with the advanced analysis, so I'm using my standard approach.",
    log: "error",
  },
  low_confidence: {
    action: "answer_with_disclaimer",
    userMessage: "My confidence in this analysis is low, so please treat it with care.",
    log: "info",
  },
};

/**
 * What the matrix says to do for `kind`: present the answer in hand (the
 * partial answer of max_iterations, the hedged answer of low_confidence) when
 * there is one and the row allows it, else the standard approach.
 */
export function fallbackAction(kind: FailureKind, answerInHand: boolean): "present_answer_in_hand" | "standard" {
  const { action } = fallbackMatrix[kind];
  if (action === "answer_with_disclaimer") return answerInHand ? "present_answer_in_hand" : "standard";
  if (action === "partial_or_standard") return answerInHand ? "present_answer_in_hand" : "standard";
  return "standard";
}

/** When every way of answering failed. */
export const unavailableMessage = "I'm sorry, I can't complete this request right now.";

/** Client error codes by failure kind (everything else is `failed`). */
const kindByCode: Partial<Record<ClientErrorCode, FailureKind>> = {
  CONNECTION_FAILED: "connection",
  RATE_LIMITED: "connection",
  HANDSHAKE_FAILED: "handshake",
  UNAUTHORIZED: "handshake",
  UNSUPPORTED_VERSION: "handshake",
  CAPABILITY_MISSING: "capability",
  INVALID_INPUT: "request",
  NOT_FOUND: "request",
  CONFLICT: "request",
  LIMIT_EXCEEDED: "request",
  PAYLOAD_TOO_LARGE: "request",
  INTENT_VALIDATION: "request",
  TIMEOUT: "timeout",
  REQUEST_TIMEOUT: "timeout",
  PROVIDER_TIMEOUT: "timeout",
  MALFORMED_RESPONSE: "malformed",
};

/** The taxonomy's kind for an error thrown by a reasoning call. */
export function classifyFailure(error: unknown): FailureKind {
  if (!DeliberateClientError.isInstance(error)) return "failed";
  return kindByCode[error.code] ?? "failed";
}

/** A reasoning attempt that did not produce a usable answer, as the outcome reports it. */
export interface ReasoningFailure {
  kind: FailureKind;
  /** The matrix's message for the user. */
  userMessage: string;
  /** What went wrong, for the host's logs (the error's or the server's message). */
  detail: string;
  /** The error code, when an error caused it. */
  code?: string;
  log: FallbackRule["log"];
  /** For timeouts and lost connections: the phase that ran out, and the deadline it had (ms). */
  phase?: CoordinatorPhase;
  deadlineMs?: number;
}

/** The outcome's failure record for `kind`. */
export function failureOf(
  kind: FailureKind,
  detail: string,
  code?: string,
  where?: { phase: CoordinatorPhase; deadlineMs: number },
): ReasoningFailure {
  const rule = fallbackMatrix[kind];
  return {
    kind,
    userMessage: rule.userMessage,
    detail,
    ...(code !== undefined ? { code } : {}),
    log: rule.log,
    ...(where ? { phase: where.phase, deadlineMs: where.deadlineMs } : {}),
  };
}
