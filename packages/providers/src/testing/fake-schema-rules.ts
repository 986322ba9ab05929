/**
 * The JSON-schema rules the real APIs apply, as the fake model server
 * applies them: what a tool's input schema must be, and the strict subsets
 * (Anthropic structured outputs and strict tools; OpenAI `json_schema` with
 * `strict: true`). Each function returns the first problem found, phrased as
 * the API phrases it, or undefined.
 */

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** Anthropic: a tool's `input_schema` must be an object schema with no composition at its top level. */
export function anthropicToolSchemaProblem(schema: unknown): string | undefined {
  if (!isObject(schema)) return "input_schema: Input should be a valid dictionary";
  if (schema["type"] !== "object") return `input_schema.type: Input should be 'object'`;
  if (schema["anyOf"] !== undefined || schema["oneOf"] !== undefined || schema["allOf"] !== undefined) {
    return "input_schema: input_schema does not support oneOf, allOf, or anyOf at the top level";
  }
  return undefined;
}

/** Keywords Anthropic's strict decoding refuses, by the type they constrain. */
const anthropicRefused: Record<string, readonly string[]> = {
  integer: ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"],
  number: ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"],
  string: ["minLength", "maxLength"],
  array: ["maxItems", "uniqueItems", "contains", "prefixItems"],
  object: ["minProperties", "maxProperties", "patternProperties", "propertyNames"],
};

/** Keywords OpenAI's strict mode does not permit anywhere. */
const openaiRefused = [
  "default",
  "minLength",
  "maxLength",
  "uniqueItems",
  "patternProperties",
  "propertyNames",
  "minProperties",
  "maxProperties",
  "oneOf",
  "allOf",
  "not",
  "if",
  "then",
  "else",
  "contains",
  "prefixItems",
  "dependentRequired",
  "dependentSchemas",
  "unevaluatedProperties",
];

interface Walk {
  root: Json;
  optional: number;
  unions: number;
  properties: number;
  resolving: string[];
}

function resolveRef(ref: string, root: Json): Json | undefined {
  if (ref === "#") return root;
  let node: unknown = root;
  for (const part of ref.replace(/^#\//, "").split("/")) node = isObject(node) ? node[part] : undefined;
  return isObject(node) ? node : undefined;
}

/**
 * Anthropic's strict subset (`output_config.format.schema`, or a tool with
 * `strict: true`): objects closed with `additionalProperties: false`, no
 * numeric or length bounds, `minItems` 0 or 1, no recursion, at most 24
 * optional properties and 16 union-typed ones.
 */
export function anthropicStrictSchemaProblem(schema: unknown): string | undefined {
  if (!isObject(schema)) return "Schema must be an object";
  if (schema["type"] !== "object") return "Schema type must be 'object' at the root";
  const walk: Walk = { root: schema, optional: 0, unions: 0, properties: 0, resolving: [] };
  const problem = anthropicNode(schema, walk);
  if (problem) return problem;
  if (walk.optional > 24)
    return `Schema contains too many optional parameters (${walk.optional}), which would make grammar compilation inefficient. Reduce the number of optional parameters in your tool schemas (limit: 24).`;
  if (walk.unions > 16)
    return `Schema contains too many parameters with union types (${walk.unions} parameters with type arrays or anyOf). This would cause exponential compilation cost. Reduce the number of nullable or union-typed parameters (limit: 16).`;
  return undefined;
}

function anthropicNode(node: unknown, walk: Walk): string | undefined {
  if (node === true || node === false) return undefined;
  if (!isObject(node)) return "Schema must be an object";
  if (typeof node["$ref"] === "string") {
    const ref = node["$ref"];
    if (walk.resolving.includes(ref)) return "Recursive schemas are not supported";
    const target = resolveRef(ref, walk.root);
    if (!target) return `Reference ${ref} could not be resolved`;
    walk.resolving.push(ref);
    const problem = anthropicNode(target, walk);
    walk.resolving.pop();
    return problem;
  }
  const type = node["type"];
  if (Array.isArray(type) && type.length > 1) walk.unions += 1;
  const branches = (node["anyOf"] ?? node["oneOf"]) as unknown[] | undefined;
  if (Array.isArray(branches)) {
    walk.unions += 1;
    for (const branch of branches) {
      const problem = anthropicNode(branch, walk);
      if (problem) return problem;
    }
  }
  for (const part of (node["allOf"] as unknown[] | undefined) ?? []) {
    const problem = anthropicNode(part, walk);
    if (problem) return problem;
  }
  for (const single of Array.isArray(type) ? type : [type]) {
    if (typeof single !== "string") continue;
    for (const keyword of anthropicRefused[single] ?? []) {
      if (node[keyword] !== undefined) return `For '${single}' type, property '${keyword}' is not supported`;
    }
    if (single === "array" && typeof node["minItems"] === "number" && node["minItems"] > 1) {
      return `For 'array' type, 'minItems' values other than 0 or 1 are not supported`;
    }
  }
  if (typeof node["pattern"] === "string" && /\(\?[=!<]|\\[1-9]|\\k<|\\[bB]/.test(node["pattern"])) {
    return `Unsupported regex pattern: ${node["pattern"]} (lookaround, backreferences and word boundaries are not supported)`;
  }
  const properties = node["properties"];
  const isObjectType =
    type === "object" || (Array.isArray(type) && type.includes("object")) || properties !== undefined;
  if (isObjectType) {
    if (node["additionalProperties"] !== false)
      return "For 'object' type, 'additionalProperties' must be explicitly set to false";
    const required = new Set((node["required"] as string[] | undefined) ?? []);
    for (const [key, value] of Object.entries(isObject(properties) ? properties : {})) {
      if (!required.has(key)) walk.optional += 1;
      const problem = anthropicNode(value, walk);
      if (problem) return problem;
    }
  }
  if (node["items"] !== undefined) return anthropicNode(node["items"], walk);
  return undefined;
}

/**
 * OpenAI's strict mode (`json_schema` with `strict: true`): an object root
 * without `anyOf`, every object closed with every property required, every
 * schema typed (or `anyOf` / `enum` / `const` / `$ref`), none of the
 * keywords it does not permit, at most 10 levels of nesting and 5,000 properties.
 * Messages follow OpenAI's `In context=(...)` form.
 */
export function openaiStrictSchemaProblem(schema: unknown): string | undefined {
  if (!isObject(schema)) return "schema must be a JSON Schema object";
  if (schema["type"] !== "object")
    return `schema must be a JSON Schema of 'type: "object"', got 'type: "${String(schema["type"] ?? "undefined")}"'.`;
  if (schema["anyOf"] !== undefined)
    return "In context=(), 'anyOf' is not permitted at the root; the root must be an object.";
  const walk: Walk = { root: schema, optional: 0, unions: 0, properties: 0, resolving: [] };
  const problem = openaiNode(schema, [], 0, walk);
  if (problem) return problem;
  if (walk.properties > 5000)
    return `A schema may have up to 5000 properties in total; this one has ${walk.properties}.`;
  return undefined;
}

function context(path: readonly string[]): string {
  return `In context=(${path.map((part) => `'${part}'`).join(", ")}${path.length === 1 ? "," : ""})`;
}

function openaiNode(node: unknown, path: readonly string[], depth: number, walk: Walk): string | undefined {
  if (!isObject(node)) return `${context(path)}, schema must be a JSON Schema object.`;
  if (depth > 10) return `${context(path)}, schemas may be nested at most 10 levels deep.`;
  if (typeof node["$ref"] === "string") {
    const ref = node["$ref"];
    // Recursion is allowed on OpenAI: stop at a reference already being checked.
    if (walk.resolving.includes(ref)) return undefined;
    const target = resolveRef(ref, walk.root);
    if (!target) return `${context(path)}, reference ${ref} could not be resolved.`;
    walk.resolving.push(ref);
    const problem = openaiNode(target, path, depth, walk);
    walk.resolving.pop();
    return problem;
  }
  for (const keyword of openaiRefused) {
    if (node[keyword] !== undefined) return `${context(path)}, '${keyword}' is not permitted.`;
  }
  if (Array.isArray(node["anyOf"])) {
    for (const [index, branch] of (node["anyOf"] as unknown[]).entries()) {
      const problem = openaiNode(branch, [...path, "anyOf", String(index)], depth + 1, walk);
      if (problem) return problem;
    }
    return undefined;
  }
  if (node["type"] === undefined && node["enum"] === undefined && node["const"] === undefined) {
    return `${context(path)}, schema must have a 'type' key.`;
  }
  const types = Array.isArray(node["type"]) ? node["type"] : [node["type"]];
  if (types.includes("object")) {
    if (node["additionalProperties"] !== false)
      return `${context(path)}, 'additionalProperties' is required to be supplied and to be false.`;
    const properties = isObject(node["properties"]) ? node["properties"] : {};
    const required = new Set((node["required"] as string[] | undefined) ?? []);
    for (const key of Object.keys(properties)) {
      if (!required.has(key))
        return `${context(path)}, 'required' is required to be supplied and to be an array including every key in properties. Missing '${key}'.`;
    }
    for (const [key, value] of Object.entries(properties)) {
      walk.properties += 1;
      const problem = openaiNode(value, [...path, "properties", key], depth + 1, walk);
      if (problem) return problem;
    }
  }
  if (types.includes("array")) {
    if (node["items"] === undefined) return `${context(path)}, array schema missing items.`;
    return openaiNode(node["items"], [...path, "items"], depth + 1, walk);
  }
  return undefined;
}
