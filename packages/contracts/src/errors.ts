import { errorCodes } from "@deliberate/base";
import { z } from "zod";
import { lazySchema } from "./lazy-schema.ts";

/** The error codes as a schema (for OpenAPI and validation of error bodies). */
export const errorCodeSchema = lazySchema(() => z.enum(errorCodes));

/** The JSON body of an error, as a schema. */
export const errorBodySchema = lazySchema(() =>
  z.object({
    code: errorCodeSchema,
    message: z.string(),
    issues: z.array(z.object({ field: z.string(), message: z.string() })).optional(),
    hint: z.string().optional(),
    retryable: z.boolean(),
    retry_after_seconds: z
      .number()
      .int()
      .positive()
      .optional()
      .describe("When retryable: seconds to wait before retrying (MCP results; HTTP answers send Retry-After)"),
  }),
);

/**
 * Failures that exist only at the HTTP surface (no engine code raises them): a
 * missing or wrong token, a foreign Host or Origin, a body over the limit or not
 * JSON, the rate limit, an unsupported `Accept-Version`, a request that ran past
 * the service's timeout.
 */
export const httpErrorCodeSchema = lazySchema(() =>
  z.enum([
    "UNAUTHORIZED",
    "FORBIDDEN",
    "PAYLOAD_TOO_LARGE",
    "UNSUPPORTED_MEDIA_TYPE",
    "RATE_LIMITED",
    "UNSUPPORTED_VERSION",
    "REQUEST_TIMEOUT",
  ]),
);
export type HttpErrorCode = z.infer<typeof httpErrorCodeSchema>;

/** The error detail of the HTTP surface: the error body, with the HTTP-only codes as well. */
export const errorDetailSchema = lazySchema(() =>
  z
    .object({
      code: z.union([errorCodeSchema, httpErrorCodeSchema]).describe("Stable error code"),
      message: z.string(),
      issues: z
        .array(z.object({ field: z.string().describe("Dotted path of the field"), message: z.string() }))
        .optional()
        .describe("Field-level problems (INVALID_INPUT)"),
      hint: z.string().optional().describe("What the caller can do about it"),
      retryable: z.boolean().describe("Whether the same call may succeed later"),
      error_id: z
        .string()
        .optional()
        .describe("INTERNAL and STORAGE errors: the id of the server log line holding the details"),
    })
    .meta({ title: "ErrorDetail" }),
);
export type ErrorDetail = z.infer<typeof errorDetailSchema>;

/** The JSON body of every HTTP error response. */
export const errorResponseSchema = lazySchema(() =>
  z
    .object({
      status: z.literal("error"),
      error: errorDetailSchema,
      request_id: z.string().optional(),
    })
    .meta({ title: "ErrorResponse" }),
);
export type ErrorResponse = z.infer<typeof errorResponseSchema>;
