import { jsonDepthField, jsonDepthViolation, maxJsonDepth } from "@deliberate/contracts";
import { type JSONRPCMessage, parseJSONRPCMessage, ProtocolErrorCode } from "@modelcontextprotocol/server";

/** A JSON-RPC error a transport answers itself, naming what is wrong (`data.issues`). */
export interface JsonRpcRefusal {
  code: number;
  message: string;
  id: string | number | null;
  issues: Array<{ field: string; message: string }>;
}

/** The request id of a parsed line when it can be read, else null (JSON-RPC's "id could not be determined"). */
function readableId(value: unknown): string | number | null {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return null;
  const id = (value as Record<string, unknown>)["id"];
  return typeof id === "string" || (typeof id === "number" && Number.isSafeInteger(id)) ? id : null;
}

/**
 * One line of stdin (or one HTTP body) as a JSON-RPC message, or the error to
 * answer it with: -32700 when it is not JSON, -32600 when it is not a JSON-RPC
 * message or nests deeper than the limit, with the id when it can be read.
 */
export function readJsonRpcLine(line: string): { message: JSONRPCMessage } | { error: JsonRpcRefusal } {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return {
      error: {
        code: ProtocolErrorCode.ParseError,
        message: `Parse error: not valid JSON (${reason})`,
        id: null,
        issues: [{ field: "(message)", message: `not valid JSON: ${reason}` }],
      },
    };
  }
  return readJsonRpcValue(value, mayNestTooDeep(line));
}

/**
 * False when a JSON text cannot hold a value nested deeper than the limit: every level opens with its own
 * `{` or `[`, so the depth is at most the number of those characters (counting the ones inside strings
 * too only raises the bound). Most lines have a handful, and the walk over the parsed value is skipped.
 */
export function mayNestTooDeep(text: string): boolean {
  let openings = 0;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if ((code === 123 || code === 91) && ++openings > maxJsonDepth) return true;
  }
  return false;
}

/**
 * A parsed value as a JSON-RPC message (depth first, then the envelope), or the -32600 error naming the field.
 * `checkDepth` false skips the depth walk: for a value whose text `mayNestTooDeep` cleared.
 */
export function readJsonRpcValue(
  value: unknown,
  checkDepth = true,
): { message: JSONRPCMessage } | { error: JsonRpcRefusal } {
  const id = readableId(value);
  const tooDeep = checkDepth ? jsonDepthViolation(value) : undefined;
  if (tooDeep) {
    const field = jsonDepthField(tooDeep);
    return {
      error: {
        code: ProtocolErrorCode.InvalidRequest,
        message: `Invalid input: ${field}: nested deeper than ${maxJsonDepth} levels (the limit); flatten it or send it as a string`,
        id,
        issues: [{ field, message: `nested deeper than ${maxJsonDepth} levels (the limit)` }],
      },
    };
  }
  const problems = envelopeProblems(value);
  if (problems.length === 0) {
    // The SDK's parse accepts these as they are (its result is an equal copy): skip it (a per-call cost).
    if (isPlainRequestOrNotification(value)) return withToolCallChecked(value as JSONRPCMessage, id);
    try {
      return withToolCallChecked(parseJSONRPCMessage(value), id);
    } catch (error) {
      const reason =
        (error as { issues?: Array<{ message: string }> }).issues?.[0]?.message ?? "not a JSON-RPC 2.0 message";
      problems.push({ field: "(message)", message: reason });
    }
  }
  const summary = problems.map((problem) => `${problem.field}: ${problem.message}`).join("; ");
  return {
    error: {
      code: ProtocolErrorCode.InvalidRequest,
      message: `Invalid Request: ${summary}. Send one JSON-RPC 2.0 object per line, e.g. {"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
      id,
      issues: problems,
    },
  };
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === "object" && !Array.isArray(value);

/**
 * A request or notification whose envelope passed `envelopeProblems` and
 * that the SDK's `parseJSONRPCMessage` accepts unchanged: an id that is a
 * string or a safe integer (the SDK's integers are safe ones) or none, and
 * params that are absent or an object without `_meta` (which the SDK checks
 * field by field) and without an own `__proto__` key (which the SDK's copy
 * drops). Anything else goes through the SDK's parse.
 */
function isPlainRequestOrNotification(value: unknown): boolean {
  if (!isPlainObject(value) || typeof value["method"] !== "string") return false;
  const id = value["id"];
  if ("id" in value && typeof id !== "string" && !Number.isSafeInteger(id)) return false;
  const params = value["params"];
  return params === undefined
    ? !("params" in value)
    : isPlainObject(params) && !("_meta" in params) && !Object.hasOwn(params, "__proto__");
}

/** A well-formed message, or the invalid-params error of a tools/call whose name or arguments have the wrong type. */
function withToolCallChecked(
  message: JSONRPCMessage,
  id: string | number | null,
): { message: JSONRPCMessage } | { error: JsonRpcRefusal } {
  const problems = toolCallProblems(message as unknown as Record<string, unknown>);
  if (problems.length === 0) return { message };
  const summary = problems.map((problem) => `${problem.field}: ${problem.message}`).join("; ");
  return {
    error: {
      code: ProtocolErrorCode.InvalidParams,
      message: `Invalid params for tools/call: ${summary}`,
      id,
      issues: problems,
    },
  };
}

/**
 * What the SDK's tools/call schema would refuse in a request's params (its
 * answer was its schema's issues dumped as JSON): a name that is not a
 * string, arguments that are not an object. Named as the fields of a tool
 * call, like the tool's own INVALID_INPUT.
 */
function toolCallProblems(value: Record<string, unknown>): Array<{ field: string; message: string }> {
  if (value["method"] !== "tools/call" || !("id" in value)) return [];
  const params = value["params"];
  if (!isPlainObject(params))
    return [{ field: "params", message: 'is required: { "name": "<tool>", "arguments": { ... } }' }];
  const problems: Array<{ field: string; message: string }> = [];
  if (typeof params["name"] !== "string")
    problems.push({ field: "name", message: "must be the tool's name (a string)" });
  if ("arguments" in params && !isPlainObject(params["arguments"])) {
    const kind =
      params["arguments"] === null
        ? "null"
        : Array.isArray(params["arguments"])
          ? "an array"
          : typeof params["arguments"];
    problems.push({ field: "arguments", message: `must be a JSON object (the tool's input), got ${kind}` });
  }
  return problems;
}

const requestMembers: readonly string[] = ["jsonrpc", "id", "method", "params"];
const responseMembers: readonly string[] = ["jsonrpc", "id", "result", "error"];

/** What makes a parsed value not a JSON-RPC 2.0 request, notification or response, field by field. */
function envelopeProblems(value: unknown): Array<{ field: string; message: string }> {
  if (!isPlainObject(value)) {
    return [
      {
        field: "(message)",
        message: Array.isArray(value) ? "must be one JSON object (batches are not supported)" : "must be a JSON object",
      },
    ];
  }
  const problems: Array<{ field: string; message: string }> = [];
  if (value["jsonrpc"] !== "2.0") problems.push({ field: "jsonrpc", message: 'must be "2.0"' });
  const id = value["id"];
  const validId = typeof id === "string" || (typeof id === "number" && Number.isInteger(id));
  if ("id" in value && !validId) problems.push({ field: "id", message: "must be a string or an integer" });
  const members = "method" in value ? requestMembers : responseMembers;
  for (const key of Object.keys(value))
    if (!members.includes(key)) problems.push({ field: key, message: "is not a JSON-RPC 2.0 member; remove it" });
  if ("method" in value) {
    if (typeof value["method"] !== "string" || value["method"] === "")
      problems.push({ field: "method", message: "must be a non-empty string" });
    if ("params" in value && !isPlainObject(value["params"]))
      problems.push({ field: "params", message: "must be an object when present" });
    return problems;
  }
  const hasResult = "result" in value;
  const hasError = "error" in value;
  if (!hasResult && !hasError)
    return [...problems, { field: "method", message: "is required (or result / error for a response)" }];
  if (!("id" in value)) problems.push({ field: "id", message: "is required in a response" });
  if (hasResult && hasError)
    problems.push({ field: "result", message: "a response carries result or error, not both" });
  if (hasResult && !isPlainObject(value["result"])) problems.push({ field: "result", message: "must be an object" });
  if (hasError) {
    const error = value["error"];
    if (!isPlainObject(error) || !Number.isInteger(error["code"]) || typeof error["message"] !== "string") {
      problems.push({ field: "error", message: "must be an object with an integer code and a string message" });
    }
  }
  return problems;
}
