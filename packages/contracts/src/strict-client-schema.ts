/**
 * The published input schema in the form strict-mode clients can take as is
 * (OpenAI's strict function calling, and the OpenAI Agents SDK, which converts
 * an MCP tool to strict mode only when its schema already is: every object
 * closed, every optional property's nullability known and, inside `anyOf`,
 * accepting null; see `assertOpenAIStrictToolSchemaPreservesOpenObjects` in
 * `@openai/agents-core` `utils/strictToolSchema`):
 *
 * - every object is closed (`additionalProperties: false`), empty ones too;
 *   the inputs refuse or drop unknown keys, so this says no more than is true;
 * - every optional property also accepts `null`, which validation reads as
 *   "not given" (`nullsAsAbsent`), as strict clients send it.
 */
type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** Keywords whose values are data, not schemas. */
const dataKeywords = new Set(["const", "enum", "default", "examples"]);

/** Whether a schema node already lets `null` through. */
function acceptsNull(node: Json): boolean {
  const type = node["type"];
  if (type === "null" || (Array.isArray(type) && type.includes("null"))) return true;
  if ("const" in node) return node["const"] === null;
  if (Array.isArray(node["enum"])) return node["enum"].includes(null);
  if (Array.isArray(node["anyOf"])) return node["anyOf"].some((branch) => isObject(branch) && acceptsNull(branch));
  return type === undefined && node["$ref"] === undefined;
}

/** `node` also accepting `null`, in the plainest form that says so. */
function nullable(node: Json): Json {
  if (acceptsNull(node)) return node;
  if (typeof node["$ref"] === "string") {
    const { $ref, description, title, default: defaultValue, ...rest } = node;
    return {
      anyOf: [{ $ref, ...rest }, { type: "null" }],
      ...(description !== undefined ? { description } : {}),
      ...(title !== undefined ? { title } : {}),
    };
  }
  if (Array.isArray(node["anyOf"])) return { ...node, anyOf: [...node["anyOf"], { type: "null" }] };
  const result: Json = { ...node };
  if (typeof node["type"] === "string") result["type"] = [node["type"], "null"];
  else if (Array.isArray(node["type"])) result["type"] = [...node["type"], "null"];
  if ("const" in node) {
    const { const: only, ...rest } = result;
    return { ...rest, enum: [only, null] };
  }
  if (Array.isArray(node["enum"])) result["enum"] = [...node["enum"], null];
  return result;
}

const isObjectType = (node: Json): boolean =>
  node["type"] === "object" ||
  (Array.isArray(node["type"]) && node["type"].includes("object")) ||
  (node["type"] === undefined && isObject(node["properties"]));

/** Closes every object and makes every optional property nullable, at any depth (a new schema; `schema` is left as is). */
export function strictClientInputSchema(schema: Json): Json {
  const visit = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(visit);
    if (!isObject(node)) return node;
    const result: Json = {};
    for (const [key, value] of Object.entries(node))
      result[key] = dataKeywords.has(key)
        ? value
        : key === "properties" || key === "$defs"
          ? visitMembers(value)
          : visit(value);
    // Several types in one `type` ("string or number"): strict validators want them as anyOf branches.
    if (
      Array.isArray(result["type"]) &&
      result["type"].filter((type) => type !== "null").length > 1 &&
      Object.keys(result).every((key) => key === "type" || key === "description" || key === "title")
    ) {
      const { type, ...metadata } = result;
      return { anyOf: (type as string[]).map((single) => ({ type: single })), ...metadata };
    }
    if (isObjectType(result)) {
      if (
        result["additionalProperties"] === undefined &&
        result["patternProperties"] === undefined &&
        result["propertyNames"] === undefined
      )
        result["additionalProperties"] = false;
      if (result["additionalProperties"] === false && result["properties"] === undefined) result["properties"] = {};
      const required = new Set(Array.isArray(result["required"]) ? (result["required"] as string[]) : []);
      if (isObject(result["properties"])) {
        result["properties"] = Object.fromEntries(
          Object.entries(result["properties"]).map(([key, value]) => [
            key,
            required.has(key) || !isObject(value) ? value : nullable(value),
          ]),
        );
      }
    }
    return result;
  };
  const visitMembers = (members: unknown): unknown =>
    isObject(members)
      ? Object.fromEntries(Object.entries(members).map(([key, value]) => [key, visit(value)]))
      : members;
  return visit(schema) as Json;
}
