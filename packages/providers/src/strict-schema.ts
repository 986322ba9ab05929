/**
 * Any answer schema in the subset both providers decode strictly
 * (Anthropic `output_config.format` / `strict: true` tools, OpenAI
 * `json_schema` with `strict: true`): every object closed
 * (`additionalProperties: false`) with every property required (optional
 * ones nullable: `anyOf [..., {type: "null"}]`), records as lists of
 * `{ key, value }` entries, references inlined,
 * `oneOf` as `anyOf`, `allOf` merged, `const` as a one-value `enum`, type
 * lists as `anyOf`, and only the keywords both accept. Constraints the
 * subsets refuse (numeric ranges, string lengths, `maxItems`, `minItems`
 * above 1, `uniqueItems`, `default`, ...) are dropped from the schema and
 * said in the description instead: the answer's validator still checks
 * them. A schema that cannot be expressed (any value, records of any values,
 * recursion, tuples, or one past the documented size limits) does not fit,
 * with the reasons.
 */

type Json = Record<string, unknown>;

/** The outcome of `toStrictSchema`. */
export type StrictSchemaResult = { fits: true; schema: Json } | { fits: false; reasons: string[] };

/** Documented limits: OpenAI (5,000 properties, 10 levels of nesting, 1,000 enum values) and Anthropic (24 optional parameters, 16 union-typed ones). */
export const strictSchemaLimits = Object.freeze({ properties: 5000, depth: 10, enumValues: 1000, anthropicUnions: 16 });

/** String formats both strict subsets accept. */
const supportedFormats = new Set([
  "date-time",
  "time",
  "date",
  "duration",
  "email",
  "hostname",
  "ipv4",
  "ipv6",
  "uuid",
]);

/** Regular-expression features the strict decoders refuse: lookaround, backreferences, word boundaries. */
const unsupportedPattern = /\(\?[=!<]|\\[1-9]|\\k<|\\[bB]/;

interface Context {
  root: Json;
  reasons: string[];
  /** `$ref`s being inlined, to find recursion. */
  resolving: string[];
  properties: number;
  enumValues: number;
  unions: number;
}

/**
 * Transforms an object-rooted JSON schema (see `describeAnswerFormat`, which
 * wraps other roots) into the strict subset, or says why it cannot.
 */
export function toStrictSchema(schema: Json): StrictSchemaResult {
  const context: Context = { root: schema, reasons: [], resolving: [], properties: 0, enumValues: 0, unions: 0 };
  if (schema["type"] !== "object" || hasComposition(schema)) {
    return { fits: false, reasons: ["the root must be an object without anyOf, oneOf or allOf"] };
  }
  const transformed = transform(schema, "(root)", 0, context);
  // Nullable wrappers add levels of their own: measure the result as the APIs do.
  if (nestingOf(transformed) > strictSchemaLimits.depth)
    context.reasons.push(`nested more than ${strictSchemaLimits.depth} levels deep once optional fields are nullable`);
  if (context.properties > strictSchemaLimits.properties)
    context.reasons.push(`more than ${strictSchemaLimits.properties} properties`);
  if (context.enumValues > strictSchemaLimits.enumValues)
    context.reasons.push(`more than ${strictSchemaLimits.enumValues} enum values`);
  if (context.unions > strictSchemaLimits.anthropicUnions) {
    context.reasons.push(`more than ${strictSchemaLimits.anthropicUnions} union-typed (anyOf or nullable) properties`);
  }
  return context.reasons.length > 0
    ? { fits: false, reasons: [...new Set(context.reasons)] }
    : { fits: true, schema: transformed };
}

/** Levels of a schema: one per property, array item and anyOf branch on the way down. */
function nestingOf(node: unknown): number {
  if (!isObject(node)) return 0;
  const children = [
    ...Object.values(isObject(node["properties"]) ? node["properties"] : {}),
    ...(node["items"] !== undefined ? [node["items"]] : []),
    ...(Array.isArray(node["anyOf"]) ? node["anyOf"] : []),
  ];
  return children.length === 0 ? 0 : 1 + Math.max(...children.map(nestingOf));
}

function hasComposition(node: Json): boolean {
  return node["anyOf"] !== undefined || node["oneOf"] !== undefined || node["allOf"] !== undefined;
}

const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** Resolves a local `$ref` (`#/$defs/x`, `#/definitions/x`, `#`). */
function resolveRef(ref: string, context: Context): Json | undefined {
  if (ref === "#") return context.root;
  if (!ref.startsWith("#/")) return undefined;
  let node: unknown = context.root;
  for (const part of ref.slice(2).split("/")) {
    node = isObject(node) ? node[part.replaceAll("~1", "/").replaceAll("~0", "~")] : undefined;
  }
  return isObject(node) ? node : undefined;
}

/** `allOf` of objects as one object schema (properties and required united); undefined when the parts are not all objects. */
export function mergeAllOf(parts: readonly Json[]): Json | undefined {
  const merged: Json = { type: "object", properties: {}, required: [] };
  for (const part of parts) {
    // The node holding the allOf may add nothing but a description.
    if (Object.keys(part).every((key) => key === "description" || key === "title")) continue;
    if (part["type"] !== undefined && part["type"] !== "object") return undefined;
    if (part["properties"] === undefined && part["type"] !== "object") return undefined;
    Object.assign(merged["properties"] as Json, part["properties"] ?? {});
    merged["required"] = [
      ...new Set([...(merged["required"] as string[]), ...((part["required"] as string[] | undefined) ?? [])]),
    ];
    if (typeof part["description"] === "string") merged["description"] = part["description"];
  }
  return merged;
}

/**
 * An object with its own properties and `anyOf` branches (a base plus
 * per-branch refinements) as one `anyOf` of whole objects: each branch gets
 * the base's properties, its own winning, and both required lists.
 */
export function distributeBase(node: Json): Json[] {
  const branches = ((node["anyOf"] ?? node["oneOf"]) as Json[] | undefined) ?? [];
  const base = node["properties"] as Json | undefined;
  if (!base) return branches;
  const baseRequired = (node["required"] as string[] | undefined) ?? [];
  return branches.map((branch) =>
    isObject(branch) && (branch["type"] === "object" || branch["properties"] !== undefined)
      ? {
          ...branch,
          type: "object",
          properties: { ...base, ...((branch["properties"] as Json | undefined) ?? {}) },
          required: [...new Set([...baseRequired, ...((branch["required"] as string[] | undefined) ?? [])])],
        }
      : branch,
  );
}

function transform(input: unknown, path: string, depth: number, context: Context): Json {
  if (
    input === true ||
    (isObject(input) && Object.keys(input).filter((key) => key !== "description" && key !== "title").length === 0)
  ) {
    context.reasons.push(`${path} accepts any value`);
    return {};
  }
  if (!isObject(input)) {
    context.reasons.push(`${path} accepts no value`);
    return {};
  }
  if (depth > strictSchemaLimits.depth) {
    context.reasons.push(`${path} is nested more than ${strictSchemaLimits.depth} levels deep`);
    return {};
  }
  const node = input;
  if (typeof node["$ref"] === "string") {
    const ref = node["$ref"];
    if (context.resolving.includes(ref)) {
      context.reasons.push(`${path} is recursive (${ref})`);
      return {};
    }
    const target = resolveRef(ref, context);
    if (!target) {
      context.reasons.push(`${path} refers to ${ref}, which is not in the schema`);
      return {};
    }
    const { $ref: _ref, ...siblings } = node;
    context.resolving.push(ref);
    const resolved = transform({ ...target, ...siblings }, path, depth, context);
    context.resolving.pop();
    return resolved;
  }
  const notes: string[] = [];
  const description = typeof node["description"] === "string" ? node["description"] : undefined;
  const finish = (result: Json): Json => {
    const text = [description, notes.length > 0 ? `(${notes.join("; ")})` : undefined].filter(Boolean).join(" ");
    return text.length > 0 ? { ...result, description: text } : result;
  };

  if (Array.isArray(node["allOf"])) {
    const { allOf, ...rest } = node;
    const merged = mergeAllOf([
      rest,
      ...(allOf as Json[]).map((part) =>
        isObject(part) && typeof part["$ref"] === "string" ? (resolveRef(part["$ref"], context) ?? part) : part,
      ),
    ]);
    if (!merged) {
      context.reasons.push(`${path} uses allOf of non-object schemas`);
      return {};
    }
    return transform({ ...rest, ...merged }, path, depth, context);
  }
  if (Array.isArray(node["anyOf"]) || Array.isArray(node["oneOf"])) {
    const branches = distributeBase(node);
    context.unions += 1;
    return finish({
      anyOf: branches.map((branch, index) => transform(branch, `${path}.anyOf.${index}`, depth + 1, context)),
    });
  }
  if ("const" in node) {
    return finish(withEnumType({ enum: [node["const"]] }, context));
  }
  if (Array.isArray(node["enum"])) {
    return finish(withEnumType({ enum: node["enum"] }, context));
  }
  const type =
    node["type"] ?? (node["properties"] !== undefined ? "object" : node["items"] !== undefined ? "array" : undefined);
  if (Array.isArray(type)) {
    const types = type.filter((entry): entry is string => typeof entry === "string");
    if (types.length === 1) return transform({ ...node, type: types[0] }, path, depth, context);
    context.unions += 1;
    const { type: _types, description: _description, ...rest } = node;
    return finish({ anyOf: types.map((single) => transform({ ...rest, type: single }, path, depth + 1, context)) });
  }
  switch (type) {
    case "object":
      return finish(transformObject(node, path, depth, context, notes));
    case "array":
      return finish(transformArray(node, path, depth, context, notes));
    case "string":
      return finish(transformString(node, notes));
    case "number":
    case "integer":
      describeNumber(node, notes);
      return finish({ type });
    case "boolean":
    case "null":
      return finish({ type });
    default:
      context.reasons.push(`${path} has no type`);
      return {};
  }
}

function withEnumType(node: Json, context: Context): Json {
  const values = node["enum"] as unknown[];
  context.enumValues += values.length;
  const types = new Set(
    values.map((value) => (value === null ? "null" : Number.isInteger(value) ? "integer" : typeof value)),
  );
  if (types.size !== 1) return node;
  const [only] = [...types];
  return only === "string" || only === "integer" || only === "number" || only === "boolean"
    ? { type: only, ...node }
    : node;
}

function transformObject(node: Json, path: string, depth: number, context: Context, notes: string[]): Json {
  const additional = node["additionalProperties"];
  const properties = isObject(node["properties"]) ? node["properties"] : undefined;
  if (isRecordSchema(node)) return recordAsEntries(node, path, depth, context, notes);
  // `{}` beside listed properties (zod's passthrough) closes like any object; a schema for other keys as well is a mixed record.
  const openValues = additional === true || (isObject(additional) && Object.keys(additional).length > 0);
  if (openValues || node["patternProperties"] !== undefined || node["propertyNames"] !== undefined) {
    context.reasons.push(`${path} has listed properties and open ones`);
    return {};
  }
  if (properties === undefined && additional !== false) {
    context.reasons.push(`${path} is an object of any shape`);
    return {};
  }
  const required = new Set((node["required"] as string[] | undefined) ?? []);
  const strictProperties: Json = {};
  for (const [key, value] of Object.entries(properties ?? {})) {
    context.properties += 1;
    const transformed = transform(value, `${path === "(root)" ? "" : `${path}.`}${key}`, depth + 1, context);
    if (required.has(key) || acceptsNull(transformed)) {
      strictProperties[key] = transformed;
    } else {
      context.unions += 1;
      strictProperties[key] = nullable(transformed);
    }
  }
  if (node["minProperties"] !== undefined) notes.push(`at least ${String(node["minProperties"])} properties`);
  return {
    type: "object",
    properties: strictProperties,
    required: Object.keys(strictProperties),
    additionalProperties: false,
  };
}

/**
 * A record (keys not listed in advance: `additionalProperties` or
 * `propertyNames` and no `properties`), which no strict subset can express.
 */
export function isRecordSchema(node: Json): boolean {
  if (node["properties"] !== undefined && isObject(node["properties"]) && Object.keys(node["properties"]).length > 0)
    return false;
  const additional = node["additionalProperties"];
  return (isObject(additional) && Object.keys(additional).length > 0) || isObject(node["propertyNames"]);
}

/**
 * A record as a list of `{ key, value }` entries, which strict decoding can
 * follow: the key keeps the record's key schema (an enum of names, a
 * pattern), the value its value schema. `fromStrictAnswer` turns the entries
 * back into the record.
 */
function recordAsEntries(node: Json, path: string, depth: number, context: Context, notes: string[]): Json {
  const valueSchema = node["additionalProperties"];
  if (!isObject(valueSchema) || Object.keys(valueSchema).length === 0) {
    context.reasons.push(`${path} is a record of any values`);
    return {};
  }
  const keySchema = isObject(node["propertyNames"])
    ? transform({ type: "string", ...node["propertyNames"] }, `${path}.key`, depth + 2, context)
    : { type: "string" };
  const value = transform(valueSchema, `${path}.value`, depth + 2, context);
  context.properties += 2;
  notes.push("one entry per key, each key once");
  if (typeof node["minProperties"] === "number" && node["minProperties"] > 1)
    notes.push(`at least ${node["minProperties"]} entries`);
  if (typeof node["maxProperties"] === "number") notes.push(`at most ${node["maxProperties"]} entries`);
  return {
    type: "array",
    items: {
      type: "object",
      properties: { key: keySchema, value },
      required: ["key", "value"],
      additionalProperties: false,
    },
    ...(typeof node["minProperties"] === "number" && node["minProperties"] >= 1 ? { minItems: 1 } : {}),
  };
}

/** Whether a transformed schema already accepts null. */
function acceptsNull(node: Json): boolean {
  if (node["type"] === "null") return true;
  if (Array.isArray(node["enum"]) && node["enum"].includes(null)) return true;
  return Array.isArray(node["anyOf"]) && (node["anyOf"] as Json[]).some(acceptsNull);
}

/** `schema` or null, its description kept on the outside. */
function nullable(schema: Json): Json {
  const { description, ...rest } = schema;
  return {
    anyOf: [rest, { type: "null" }],
    ...(typeof description === "string"
      ? { description: `${description} (null when absent)` }
      : { description: "(null when absent)" }),
  };
}

function transformArray(node: Json, path: string, depth: number, context: Context, notes: string[]): Json {
  if (Array.isArray(node["prefixItems"])) {
    context.reasons.push(`${path} is a tuple (prefixItems)`);
    return {};
  }
  if (node["items"] === undefined) {
    context.reasons.push(`${path} is an array of any items`);
    return {};
  }
  const items = transform(node["items"], `${path}.items`, depth + 1, context);
  const minItems = typeof node["minItems"] === "number" ? node["minItems"] : 0;
  const maxItems = typeof node["maxItems"] === "number" ? node["maxItems"] : undefined;
  if (minItems > 1 && maxItems !== undefined)
    notes.push(minItems === maxItems ? `exactly ${minItems} items` : `${minItems} to ${maxItems} items`);
  else if (minItems > 1) notes.push(`at least ${minItems} items`);
  else if (maxItems !== undefined) notes.push(`at most ${maxItems} items`);
  if (node["uniqueItems"] === true) notes.push("no duplicates");
  // Both subsets take minItems 0 or 1 (Anthropic nothing else).
  return { type: "array", items, ...(minItems >= 1 ? { minItems: 1 } : {}) };
}

function transformString(node: Json, notes: string[]): Json {
  const result: Json = { type: "string" };
  const minLength = node["minLength"];
  const maxLength = node["maxLength"];
  if (typeof minLength === "number" && minLength > 0 && typeof maxLength === "number")
    notes.push(`${minLength} to ${maxLength} characters`);
  else if (typeof minLength === "number" && minLength > 0)
    notes.push(minLength === 1 ? "not empty" : `at least ${minLength} characters`);
  else if (typeof maxLength === "number") notes.push(`at most ${maxLength} characters`);
  const pattern = node["pattern"];
  if (typeof pattern === "string") {
    if (unsupportedPattern.test(pattern)) notes.push(`matching /${pattern}/`);
    else result["pattern"] = pattern;
  }
  const format = node["format"];
  if (typeof format === "string") {
    if (supportedFormats.has(format)) result["format"] = format;
    else notes.push(`format ${format}`);
  }
  return result;
}

function describeNumber(node: Json, notes: string[]): void {
  const bound = (key: string, words: string) => {
    if (typeof node[key] === "number") notes.push(`${words} ${String(node[key])}`);
  };
  bound("minimum", "at least");
  bound("exclusiveMinimum", "more than");
  bound("maximum", "at most");
  bound("exclusiveMaximum", "less than");
  bound("multipleOf", "a multiple of");
}
