import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../app-env.ts";
import { HttpError } from "../errors.ts";

export function payloadTooLarge(maxBytes: number): HttpError {
  return new HttpError({
    code: "PAYLOAD_TOO_LARGE",
    message: `The request body is larger than ${maxBytes} bytes.`,
    hint: "Send less (e.g. trim history), or raise REASONING_API_MAX_BODY_BYTES.",
  });
}

/**
 * Refuses a declared Content-Length over the limit before anything is read;
 * bodies without one (chunked) are limited while they are read (`readBodyText`).
 */
export function bodyLimit(options: { maxBytes: number }): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const declared = c.req.header("content-length");
    if (declared !== undefined && Number(declared) > options.maxBytes) throw payloadTooLarge(options.maxBytes);
    c.set("maxBodyBytes", options.maxBytes);
    await next();
  };
}
