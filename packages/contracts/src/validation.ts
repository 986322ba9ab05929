import type { z } from "zod";
import { DeliberateError, type FieldIssue } from "@deliberate/base";

/** Turns zod issues into field-named, human-fixable issues. */
export function toFieldIssues(error: z.ZodError): FieldIssue[] {
  return error.issues.map((issue) => ({
    field: issue.path.length > 0 ? issue.path.map(String).join(".") : "(input)",
    message: issue.message,
  }));
}

/**
 * Parses `value` with `schema` or throws INVALID_INPUT naming every bad field.
 * `what` names the thing being validated in the message (e.g. a tool name).
 */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown, what: string): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issues = toFieldIssues(result.error);
  const summary = issues.map((issue) => `${issue.field}: ${issue.message}`).join("; ");
  throw new DeliberateError({
    code: "INVALID_INPUT",
    message: `Invalid input for ${what}: ${summary}`,
    issues,
    hint: "Fix the named fields and call again; nothing was written.",
  });
}
