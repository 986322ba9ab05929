import { containsNulCharacter, nulCharacterIssues, nullsAsAbsent, toFieldIssues } from "@deliberate/contracts";
import type { z } from "zod";
import { DeliberateClientError } from "./errors.ts";

/**
 * Parses `value` with `schema` or throws INVALID_INPUT naming each field (nothing is sent).
 * Text holding U+0000 anywhere is refused as the services refuse it, naming its field.
 * `null` for an optional field counts as not given, as the services read it.
 */
export function validateWith<S extends z.ZodType>(schema: S, value: unknown, what: string): z.output<S> {
  const checked = schema.safeParse(nullsAsAbsent(schema, value));
  if (checked.success && !containsNulCharacter(value)) return checked.data;
  const issues = [...(checked.success ? [] : toFieldIssues(checked.error)), ...nulCharacterIssues(value)];
  throw new DeliberateClientError({
    code: "INVALID_INPUT",
    message: `Invalid input for ${what}: ${issues.map((issue) => `${issue.field}: ${issue.message}`).join("; ")}`,
    issues,
    hint: "Fix the named fields; nothing was sent.",
  });
}

/** Checks a server's answer against the contract, or throws MALFORMED_RESPONSE naming what is wrong. */
export function checkResponse<S extends z.ZodType>(schema: S, value: unknown, what: string): z.output<S> {
  const checked = schema.safeParse(value);
  if (checked.success) return checked.data;
  const issues = toFieldIssues(checked.error);
  throw new DeliberateClientError({
    code: "MALFORMED_RESPONSE",
    message: `${what} answered something that is not its contract: ${issues
      .slice(0, 5)
      .map((issue) => `${issue.field}: ${issue.message}`)
      .join("; ")}`,
    issues,
    hint: "The server and the client disagree on the contract: check that their versions match.",
  });
}
