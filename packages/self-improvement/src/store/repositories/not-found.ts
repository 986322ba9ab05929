import { DeliberateError } from "@deliberate/base";

/** NOT_FOUND naming the missing record, the field that named it, and where to list them. */
export function notFound(kind: string, field: string, id: string, hint: string): DeliberateError {
  return new DeliberateError({
    code: "NOT_FOUND",
    message: `No ${kind} '${id}'.`,
    issues: [{ field, message: `no ${kind} '${id}'` }],
    hint,
  });
}
