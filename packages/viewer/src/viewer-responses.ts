// The viewer's HTTP responses: JSON bodies, errors and the headers every response carries.

/** The viewer page's CSP: its own script and style only, nothing framed, nothing posted. */
export const contentSecurityPolicy = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

/** Headers every viewer response carries. */
export const securityHeaders = { "x-content-type-options": "nosniff", "referrer-policy": "no-referrer" };

/** A JSON response, never cached, with the viewer's security headers. */
export function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: {
      "content-type": "application/json; charset=utf-8",
      "cache-control": "no-store",
      ...securityHeaders,
      ...headers,
    },
  });
}

/** An error response: `{ error: { code, message } }`. */
export function problem(status: number, code: string, message: string, headers: Record<string, string> = {}): Response {
  return json({ error: { code, message } }, status, headers);
}

/** 400 INVALID_INPUT naming the field (the message starts with it). */
export function invalidInput(field: string, message: string): Response {
  return json({ error: { code: "INVALID_INPUT", message: `${field}: ${message}`, issues: [{ field, message }] } }, 400);
}

/** The `code` of a thrown error, when it has a string one. */
export function errorCodeOf(error: unknown): string | undefined {
  if (typeof error !== "object" || error === null) return undefined;
  const code = (error as { code?: unknown }).code;
  return typeof code === "string" ? code : undefined;
}
