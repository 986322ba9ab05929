import { HttpError } from "../errors.ts";

/** The 413 for a body over `maxBytes` (declared, or found while reading it). */
export function payloadTooLarge(maxBytes: number): HttpError {
  return new HttpError({
    code: "PAYLOAD_TOO_LARGE",
    message: `The request body is larger than ${maxBytes} bytes.`,
    hint: "Send less (e.g. trim history), or raise REASONING_API_MAX_BODY_BYTES.",
  });
}
