import type { z } from "zod";

/**
 * A refinement that makes fields required per operation, with an error that
 * names the field and the operation, e.g. "branch_id is required for operation 'focus'".
 */
export function requireFields(byOperation: Record<string, readonly string[]>) {
  return (value: Record<string, unknown>, context: z.RefinementCtx): void => {
    const operation = String(value["operation"]);
    for (const field of byOperation[operation] ?? []) {
      const present = value[field];
      if (present === undefined || present === null || present === "") {
        context.addIssue({
          code: "custom",
          path: [field],
          message: `${field} is required for operation '${operation}'`,
        });
      }
    }
  };
}
