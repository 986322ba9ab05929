import type { z } from "zod";
import { DeliberateError, type FieldIssue } from "@deliberate/base";
import { holdsNulCharacter, mayHoldNull, scanInput } from "./input-scan.ts";
import { nulCharacterIssues } from "./nul-characters.ts";
import { nullsAsAbsent } from "./null-as-absent.ts";
import { knownKeysAt, unknownKeyMessage } from "./unknown-keys.ts";

/**
 * Turns zod issues into field-named, human-fixable issues. Given the schema that
 * produced them, an unknown key (a strict object's) also gets its likely spelling
 * (`max_iterations`: did you mean `maxIterations`?) or the keys accepted there.
 */
export function toFieldIssues(error: z.ZodError, schema?: z.ZodType): FieldIssue[] {
  return error.issues.flatMap((issue) => {
    // An unknown key is named as the field itself, so a misspelt field is found at once.
    if (issue.code === "unrecognized_keys") {
      const known = schema ? knownKeysAt(schema, issue.path) : [];
      return issue.keys.map((key) => ({
        field: [...issue.path.map(String), key].join("."),
        message: unknownKeyMessage(key, known),
      }));
    }
    return [{ field: issue.path.length > 0 ? issue.path.map(String).join(".") : "(input)", message: issue.message }];
  });
}

/**
 * Parses `value` with `schema` or throws INVALID_INPUT naming every bad field.
 * `what` names the thing being validated in the message (e.g. a tool name).
 * Text holding U+0000 anywhere (a value, an array item, an object key, at any
 * depth) is refused too, naming its field (`content`, `metadata.note`).
 * `null` for an optional field counts as not given (`nullsAsAbsent`).
 *
 * One walk of `value` (`scanInput`) before the schema's own parse (zod's
 * compiled object parsers): the nulls are looked for, and removed, only when
 * there is one; the fields holding U+0000 are named only when there is one.
 */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown, what: string): z.output<S> {
  const scanned = scanInput(value);
  const result = schema.safeParse((scanned & mayHoldNull) === 0 ? value : nullsAsAbsent(schema, value));
  if (result.success && (scanned & holdsNulCharacter) === 0) return result.data;
  const issues = [...(result.success ? [] : toFieldIssues(result.error, schema)), ...nulCharacterIssues(value)];
  const summary = issues.map((issue) => `${issue.field}: ${issue.message}`).join("; ");
  throw new DeliberateError({
    code: "INVALID_INPUT",
    message: `Invalid input for ${what}: ${summary}`,
    issues,
    hint: "Fix the named fields and call again; nothing was written.",
  });
}
