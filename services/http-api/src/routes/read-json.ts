import type { IncomingMessage } from "node:http";
import {
  DeliberateError,
  jsonDepthField,
  jsonDepthViolation,
  maxJsonDepth,
  parseInput,
  unsupportedCharset,
} from "@deliberate/contracts";
import type { Context } from "hono";
import type { z } from "zod";
import type { AppEnv } from "../app-env.ts";
import type { OperationRequest } from "../pipeline/json-operation.ts";
import { HttpError } from "../errors.ts";
import { payloadTooLarge } from "../middleware/body-limit.ts";

/** True for `application/json`, with or without parameters (`; charset=utf-8`). */
export function isJsonMediaType(contentType: string | undefined): boolean {
  return contentType?.split(";")[0]?.trim().toLowerCase() === "application/json";
}

/**
 * The body as text, at most `maxBodyBytes` (413 beyond, also for chunked
 * bodies). Under @hono/node-server it is read straight from the node stream,
 * which is much cheaper than materialising a fetch Request.
 */
export async function readBodyText(c: Context<AppEnv>): Promise<string> {
  const maxBytes = c.get("maxBodyBytes") ?? Number.POSITIVE_INFINITY;
  const incoming = c.env?.incoming;
  if (!incoming || incoming.readableEnded || incoming.readableFlowing !== null) {
    const text = await c.req.text();
    if (Buffer.byteLength(text) > maxBytes) throw payloadTooLarge(maxBytes);
    return text;
  }
  return readIncomingText(incoming, maxBytes);
}

/** A node request's body as text, at most `maxBytes` (413 beyond, the rest discarded). */
export function readIncomingText(incoming: IncomingMessage, maxBytes: number): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const cleanup = () => {
      incoming.off("data", onData);
      incoming.off("end", onEnd);
      incoming.off("error", onError);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        cleanup();
        incoming.resume(); // discard the rest
        reject(payloadTooLarge(maxBytes));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve(
        chunks.length === 1 ? (chunks[0] as Buffer).toString("utf8") : Buffer.concat(chunks, size).toString("utf8"),
      );
    };
    const onError = (error: Error) => {
      cleanup();
      reject(error);
    };
    incoming.on("data", onData);
    incoming.on("end", onEnd);
    incoming.on("error", onError);
  });
}

/** The 415 for a body that is not `application/json` in UTF-8 (a `charset` other than utf-8 is refused), or undefined. */
export function unsupportedMediaType(contentType: string | undefined): HttpError | undefined {
  if (isJsonMediaType(contentType)) {
    const charset = unsupportedCharset(contentType);
    if (charset === undefined) return undefined;
    return new HttpError({
      code: "UNSUPPORTED_MEDIA_TYPE",
      message: `The body's ${charset}.`,
      hint: "Send the body as UTF-8 with Content-Type: application/json (or ; charset=utf-8).",
    });
  }
  return new HttpError({
    code: "UNSUPPORTED_MEDIA_TYPE",
    message: `The body must be application/json${contentType === undefined ? " (no Content-Type was sent)" : `, not ${contentType.slice(0, 80)}`}.`,
    hint: "Send the JSON body with Content-Type: application/json.",
  });
}

/**
 * The request body as JSON. Only `Content-Type: application/json` is read
 * (415 otherwise: form, multipart and text/plain bodies are what cross-site
 * pages can send without asking). An empty or malformed body is INVALID_INPUT
 * with the parser's position; JSON nested deeper than the limit is
 * INVALID_INPUT naming the field, before anything recursive sees it.
 */
export async function readJsonBody(c: Context<AppEnv>): Promise<unknown> {
  const unsupported = unsupportedMediaType(c.req.header("content-type"));
  if (unsupported) throw unsupported;
  return parseJsonText(await readBodyText(c));
}

/** A JSON body's text parsed: INVALID_INPUT when empty, malformed or nested deeper than the limit. */
export function parseJsonText(text: string): unknown {
  if (text.trim() === "") {
    throw new DeliberateError({
      code: "INVALID_INPUT",
      message: "The request body is empty; send a JSON object.",
      issues: [{ field: "(body)", message: "empty" }],
      hint: "Send a JSON object with Content-Type: application/json.",
    });
  }
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new DeliberateError({
      code: "INVALID_INPUT",
      message: `Malformed JSON body: ${reason}`,
      issues: [{ field: "(body)", message: `not valid JSON: ${reason}` }],
      hint: "Send a JSON object with Content-Type: application/json; check quotes and trailing commas.",
    });
  }
  const tooDeep = jsonDepthViolation(value);
  if (tooDeep) {
    const field = jsonDepthField(tooDeep);
    throw new DeliberateError({
      code: "INVALID_INPUT",
      message: `Invalid input: ${field}: nested deeper than ${maxJsonDepth} levels (the limit).`,
      issues: [{ field, message: `nested deeper than ${maxJsonDepth} levels (the limit)` }],
      hint: "Flatten the value, or send deeply nested data as a JSON string; nothing was written.",
    });
  }
  return value;
}

/**
 * An operation's input from its JSON body (`JsonOperation.input`): 415 unless `application/json` in UTF-8,
 * the body read within the limit, parsed as {@link parseJsonText} does, then `parse`d (e.g. validated with
 * the operation's schema).
 */
export function jsonBody<Input>(parse: (value: unknown) => Input): (request: OperationRequest) => Promise<Input> {
  return async (request) => {
    const unsupported = unsupportedMediaType(request.header("content-type"));
    if (unsupported) throw unsupported;
    return parse(parseJsonText(await request.text()));
  };
}

/** The body parsed as JSON and validated with `schema` (INVALID_INPUT naming each bad field). */
export async function readBody<S extends z.ZodType>(c: Context<AppEnv>, schema: S, what: string): Promise<z.output<S>> {
  return parseInput(schema, await readJsonBody(c), what);
}
