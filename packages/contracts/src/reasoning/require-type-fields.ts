import type { z } from "zod";

/**
 * Like `requireFields`, for tools whose variant is chosen by `type` rather
 * than `operation` (detect, decision, evidence): "topic is required for type 'perspectives'".
 */
export function requireTypeFields(byType: Record<string, readonly string[]>) {
  return (value: Record<string, unknown>, context: z.RefinementCtx): void => {
    const type = String(value["type"]);
    for (const field of byType[type] ?? []) {
      const present = value[field];
      if (present === undefined || present === null || present === "") {
        context.addIssue({ code: "custom", path: [field], message: `${field} is required for type '${type}'` });
      }
    }
  };
}
