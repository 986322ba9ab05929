import { createHmac, timingSafeEqual } from "node:crypto";
import { DeliberateError, type SessionStateInput, type UpdatedSessionState } from "@deliberate/contracts";

/** What a session state token carries: which session, at which revision. */
export interface SessionStatePayload {
  /** The reasoning session id. */
  sessionId: string;
  /** The session's revision when the state was issued; a stale state is refused. */
  revision: number;
}

const version = "kg1";

function base64url(data: Buffer | string): string {
  return Buffer.from(data).toString("base64url");
}

function signature(secret: string | Buffer, body: string): Buffer {
  return createHmac("sha256", secret).update(`${version}.${body}`).digest();
}

/**
 * Signs a session's state with the server secret (HMAC-SHA256). The result is
 * opaque to the host; only a server holding the same secret can verify it.
 */
export function signSessionState(payload: SessionStatePayload, secret: string | Buffer): UpdatedSessionState {
  const body = base64url(JSON.stringify({ s: payload.sessionId, r: payload.revision }));
  return { token: `${version}.${body}.${base64url(signature(secret, body))}` };
}

function refused(message: string, hint: string): DeliberateError {
  return new DeliberateError({
    code: "INVALID_INPUT",
    message,
    issues: [{ field: "sessionState", message }],
    hint,
  });
}

/**
 * Verifies a state the host sent back and returns its payload. A state that
 * was changed, is not a state at all, or was signed with another secret (a
 * foreign server, or this one before its secret changed) is refused with
 * INVALID_INPUT naming `sessionState`.
 */
export function verifySessionState(state: SessionStateInput, secret: string | Buffer): SessionStatePayload {
  const token = typeof state === "string" ? state : state.token;
  const parts = token.split(".");
  const resendHint =
    "Send updatedSessionState from the last response unchanged, or omit sessionState and resume by reasoningSessionId.";
  if (parts.length !== 3 || parts[0] !== version)
    throw refused("sessionState is not a session state issued by this server", resendHint);
  const [, body, sent] = parts as [string, string, string];
  const expected = signature(secret, body);
  const given = Buffer.from(sent, "base64url");
  if (given.length !== expected.length || !timingSafeEqual(given, expected) || base64url(given) !== sent) {
    throw refused(
      "sessionState failed its signature check: it was altered, or it was issued by another server",
      resendHint,
    );
  }
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(body, "base64url").toString("utf8"));
  } catch {
    throw refused("sessionState is not a session state issued by this server", resendHint);
  }
  const record = decoded as { s?: unknown; r?: unknown };
  if (typeof record.s !== "string" || typeof record.r !== "number" || !Number.isInteger(record.r)) {
    throw refused("sessionState is not a session state issued by this server", resendHint);
  }
  return { sessionId: record.s, revision: record.r };
}
