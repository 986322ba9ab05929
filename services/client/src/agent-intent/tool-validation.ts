import { type AgentIntentResponse, toFieldIssues } from "@deliberate/contracts";
import { z } from "zod";
import { DeliberateClientError } from "../errors.ts";

/** A tool the host can run: its name, and the JSON Schema of its arguments when it has one. */
export interface HostTool {
  name: string;
  input_schema?: Record<string, unknown> | null;
}

const validators = new WeakMap<Record<string, unknown>, z.ZodType | Error>();

function validatorFor(schema: Record<string, unknown>): z.ZodType | Error {
  let validator = validators.get(schema);
  if (!validator) {
    try {
      validator = z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]);
    } catch (error) {
      validator = error instanceof Error ? error : new Error(String(error));
    }
    validators.set(schema, validator);
  }
  return validator;
}

/**
 * Checks a decision against the tools the host offered (the Ruby client's
 * Multiplexer check): a tool that was not offered, or arguments that fail the
 * offered tool's JSON Schema, are INTENT_VALIDATION errors naming the problem.
 * A finish, or a decision with no tool list to check against, passes.
 */
export function validateIntent(
  response: Pick<AgentIntentResponse, "tool_name" | "tool_args" | "finish">,
  offered: readonly HostTool[] | undefined,
): void {
  if (response.finish || response.tool_name === null || offered === undefined) return;
  const tool = offered.find((candidate) => candidate.name === response.tool_name);
  if (!tool) {
    throw new DeliberateClientError({
      code: "INTENT_VALIDATION",
      message: `The decision names the tool '${response.tool_name}', which was not offered (offered: ${offered.map((candidate) => candidate.name).join(", ") || "none"}).`,
      issues: [{ field: "tool_name", message: `'${response.tool_name}' was not offered` }],
      hint: "Do not run it: decide again, or offer the tool.",
    });
  }
  if (!tool.input_schema) return;
  const validator = validatorFor(tool.input_schema);
  if (validator instanceof Error) {
    throw new DeliberateClientError({
      code: "INTENT_VALIDATION",
      message: `The input_schema of '${tool.name}' cannot be used to check arguments: ${validator.message}`,
      issues: [{ field: "tool_args", message: "the offered tool's input_schema is not a usable JSON Schema" }],
    });
  }
  const checked = validator.safeParse(response.tool_args);
  if (!checked.success) {
    const issues = toFieldIssues(checked.error).map((issue) => ({
      field: issue.field === "(input)" ? "tool_args" : `tool_args.${issue.field}`,
      message: issue.message,
    }));
    throw new DeliberateClientError({
      code: "INTENT_VALIDATION",
      message: `The arguments for '${tool.name}' fail its input_schema: ${issues.map((issue) => `${issue.field}: ${issue.message}`).join("; ")}`,
      issues,
      hint: "Do not run it: decide again.",
    });
  }
}
