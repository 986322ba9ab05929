import { toDeliberateError } from "@deliberate/base";
import { type ToolDefinition, toFieldIssues } from "@deliberate/contracts";
import type { ModulePrompt } from "@deliberate/engine";
import { type McpServer, ProtocolError, ProtocolErrorCode } from "@modelcontextprotocol/server";

/** Invalid params naming the argument (`data` is the same body a tool's INVALID_INPUT has). */
function invalidArgument(field: string, message: string): ProtocolError {
  return new ProtocolError(ProtocolErrorCode.InvalidParams, `Invalid params: ${field}: ${message}`, {
    code: "INVALID_INPUT",
    issues: [{ field, message }],
  });
}

/** The prompt's text: the one tool call to make, as JSON a host can send unchanged, and what to do with its result. */
export function promptText(prompt: ModulePrompt, call: Readonly<Record<string, unknown>>): string {
  return [
    `${prompt.description}`,
    "",
    `Make exactly one tool call now: \`${prompt.tool}\` with these arguments:`,
    "```json",
    JSON.stringify(call, null, 2),
    "```",
    prompt.followUp,
  ].join("\n");
}

/** Checks the arguments a client sent against the prompt's: known names, strings, required ones non-blank. */
function checkedArguments(prompt: ModulePrompt, given: Record<string, unknown>): Record<string, string> {
  const known = new Set(prompt.arguments.map((argument) => argument.name));
  for (const [name, value] of Object.entries(given)) {
    if (!known.has(name))
      throw invalidArgument(name, `not an argument of prompt ${prompt.name}; it takes ${[...known].join(", ")}`);
    if (typeof value !== "string") throw invalidArgument(name, "must be a string");
  }
  for (const argument of prompt.arguments) {
    if (argument.required && !String(given[argument.name] ?? "").trim())
      throw invalidArgument(argument.name, `required: ${argument.description}`);
  }
  return given as Record<string, string>;
}

/** The prompt's tool call, checked against the tool's input schema so a host following it makes a valid call. */
function toolCall(
  prompt: ModulePrompt,
  args: Record<string, string>,
  tool: ToolDefinition,
): Readonly<Record<string, unknown>> {
  let call: Readonly<Record<string, unknown>>;
  try {
    call = prompt.call(args);
  } catch (error) {
    const body = toDeliberateError(error).toJSON();
    const issue = body.issues?.[0];
    throw issue
      ? invalidArgument(issue.field, issue.message)
      : new ProtocolError(ProtocolErrorCode.InvalidParams, body.message, body);
  }
  const parsed = tool.inputSchema.safeParse(call);
  if (!parsed.success) {
    const issues = toFieldIssues(parsed.error);
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      `Invalid params: the arguments do not make a valid ${tool.name} call: ${issues.map((issue) => `${issue.field}: ${issue.message}`).join("; ")}`,
      {
        code: "INVALID_INPUT",
        issues,
      },
    );
  }
  return call;
}

/**
 * Serves the composed modules' prompts (`prompts/list`, `prompts/get`): only
 * those whose tool is served. Each renders to one user message naming the
 * tool and its arguments as JSON.
 */
export function registerPrompts(
  server: McpServer,
  prompts: readonly ModulePrompt[],
  tools: readonly ToolDefinition[],
): void {
  const toolByName = new Map(tools.map((tool) => [tool.name, tool]));
  const served = prompts.filter((prompt) => toolByName.has(prompt.tool));
  if (served.length === 0) return;
  const protocol = server.server;
  protocol.registerCapabilities({ prompts: { listChanged: false } });
  protocol.setRequestHandler("prompts/list", () => ({
    prompts: served.map((prompt) => ({
      name: prompt.name,
      title: prompt.title,
      description: prompt.description,
      arguments: prompt.arguments.map((argument) => ({
        name: argument.name,
        description: argument.description,
        required: argument.required,
      })),
    })),
  }));
  protocol.setRequestHandler("prompts/get", (request) => {
    const prompt = served.find((candidate) => candidate.name === request.params.name);
    if (!prompt)
      throw invalidArgument("name", `no prompt named '${request.params.name}'; prompts/list shows the ones served`);
    const args = checkedArguments(prompt, request.params.arguments ?? {});
    const call = toolCall(prompt, args, toolByName.get(prompt.tool) as ToolDefinition);
    return {
      description: prompt.description,
      messages: [{ role: "user" as const, content: { type: "text" as const, text: promptText(prompt, call) } }],
    };
  });
}
