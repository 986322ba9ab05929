import { errorCodes } from "@deliberate/base";
import { z } from "zod";

/** The error codes as a schema (for OpenAPI and validation of error bodies). */
export const errorCodeSchema = z.enum(errorCodes);

/** The JSON body of an error, as a schema. */
export const errorBodySchema = z.object({
  code: errorCodeSchema,
  message: z.string(),
  issues: z.array(z.object({ field: z.string(), message: z.string() })).optional(),
  hint: z.string().optional(),
  retryable: z.boolean(),
});
