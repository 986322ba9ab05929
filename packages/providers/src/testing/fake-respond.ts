import type { FakeModelRequest, FakeReply, FakeResponder, FakeRespond } from "./fake-model-request.ts";

/** Thrown (and answered as a non-retryable 500) when a script cannot produce a reply. */
export class FakeScriptError extends Error {
  override name = "FakeScriptError";
}

/** Turns any accepted `respond` form into a responder; lists become queues (copied, one reply per request). */
export function toResponder(respond: FakeRespond): FakeResponder {
  if (typeof respond === "function") return respond as FakeResponder;
  if (Array.isArray(respond)) {
    const queue: FakeReply[] = [...(respond as readonly FakeReply[])];
    const total = queue.length;
    return () => {
      const next = queue.shift();
      if (next === undefined)
        throw new FakeScriptError(`The fake model server ran out of scripted replies (it was given ${total}).`);
      return next;
    };
  }
  const fixed = respond as FakeReply;
  return () => fixed;
}

/**
 * Dispatches on the structured answer's name (the Anthropic tool name or the
 * OpenAI json_schema name). Each route is any `respond` form (a list is a
 * queue of its own); `"*"` catches every other request, plain text calls
 * included.
 *
 * @example
 * respond: respondBySchemaName({
 *   linear_step: { object: { thought: "...", confidence: 0.8 } },
 *   "*": { status: 500, message: "unexpected request" },
 * })
 */
export function respondBySchemaName(routes: Record<string, FakeRespond>): FakeResponder {
  const responders = new Map(Object.entries(routes).map(([name, route]) => [name, toResponder(route)]));
  return (request: FakeModelRequest) => {
    const responder = responders.get(request.schemaName ?? "") ?? responders.get("*");
    if (!responder) {
      throw new FakeScriptError(
        `No reply scripted for schema "${request.schemaName ?? "(plain text)"}"; scripted: ${[...responders.keys()].join(", ")}. Add a route or "*".`,
      );
    }
    return responder(request);
  };
}
