import { distributeBase, isRecordSchema, mergeAllOf } from "./strict-schema.ts";

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * Maps an answer given against the strict form of `schema` (see
 * `toStrictSchema`) back to the answer the original schema expects: a
 * `null` for a property that was optional and does not itself accept null
 * means "absent", so the property is removed; a record asked for as a list
 * of `{ key, value }` entries becomes the record again. Walks the value beside the
 * original schema (references, `allOf` and `anyOf` followed); a value the
 * schema does not describe is left as it is, for the validator to judge.
 * Returns a new value; the input is not changed.
 */
export function fromStrictAnswer(value: unknown, schema: unknown, root: unknown = schema): unknown {
  const node = resolve(schema, root);
  if (!node) return value;
  if (Array.isArray(value) && isRecordSchema(node) && value.every(isEntry)) {
    const valueSchema = node["additionalProperties"];
    return Object.fromEntries(
      value.map((entry) => [
        entry["key"],
        isObject(valueSchema) ? fromStrictAnswer(entry["value"], valueSchema, root) : entry["value"],
      ]),
    );
  }
  if (Array.isArray(value)) {
    const items = node["items"];
    return items === undefined ? value : value.map((item) => fromStrictAnswer(item, items, root));
  }
  if (!isObject(value)) return value;
  const objectSchema = objectSchemaFor(value, node, root);
  if (!objectSchema) return value;
  const properties = (objectSchema["properties"] as Json | undefined) ?? {};
  const required = new Set((objectSchema["required"] as string[] | undefined) ?? []);
  const result: Json = {};
  for (const [key, entry] of Object.entries(value)) {
    const property = properties[key];
    if (entry === null && property !== undefined && !required.has(key) && !acceptsNull(property, root)) continue;
    result[key] = property === undefined ? entry : fromStrictAnswer(entry, property, root);
  }
  return result;
}

const isEntry = (value: unknown): value is Json =>
  isObject(value) && typeof value["key"] === "string" && "value" in value && Object.keys(value).length === 2;

/** Follows `$ref`s (local ones) to the schema they name. */
function resolve(schema: unknown, root: unknown, seen = new Set<string>()): Json | undefined {
  if (!isObject(schema)) return undefined;
  const ref = schema["$ref"];
  if (typeof ref !== "string" || seen.has(ref)) return schema;
  seen.add(ref);
  let target: unknown = root;
  if (ref !== "#") {
    for (const part of ref.replace(/^#\//, "").split("/")) target = isObject(target) ? target[part] : undefined;
  }
  const { $ref: _ref, ...siblings } = schema;
  const resolved = resolve(target, root, seen);
  return resolved ? { ...resolved, ...siblings } : schema;
}

/** The object schema describing `value`: the node itself, its merged `allOf`, or the `anyOf` branch that fits it best. */
function objectSchemaFor(value: Json, node: Json, root: unknown): Json | undefined {
  if (Array.isArray(node["allOf"])) {
    const parts = (node["allOf"] as unknown[]).map((part) => resolve(part, root)).filter(isObject);
    const { allOf: _allOf, ...rest } = node;
    return mergeAllOf([rest, ...parts]);
  }
  const branches = node["anyOf"] ?? node["oneOf"];
  if (Array.isArray(branches)) {
    const candidates = distributeBase(node)
      .map((branch) => resolve(branch, root))
      .filter(
        (branch): branch is Json =>
          branch !== undefined &&
          (branch["properties"] !== undefined || Array.isArray(branch["anyOf"]) || Array.isArray(branch["allOf"])),
      );
    const chosen = candidates.find((branch) => matchesDiscriminators(value, branch, root)) ?? candidates[0];
    return chosen ? objectSchemaFor(value, chosen, root) : undefined;
  }
  return node["properties"] !== undefined ? node : undefined;
}

/** A branch fits when every `const` / `enum` property it sets agrees with the value and every key of the value is one of its properties. */
function matchesDiscriminators(value: Json, branch: Json, root: unknown): boolean {
  const properties = (branch["properties"] as Json | undefined) ?? {};
  for (const key of Object.keys(value))
    if (!(key in properties) && branch["additionalProperties"] === false) return false;
  for (const [key, property] of Object.entries(properties)) {
    const resolved = resolve(property, root);
    if (!resolved || !(key in value)) continue;
    if ("const" in resolved && resolved["const"] !== value[key]) return false;
    if (Array.isArray(resolved["enum"]) && !resolved["enum"].includes(value[key])) return false;
  }
  return true;
}

function acceptsNull(schema: unknown, root: unknown): boolean {
  const node = resolve(schema, root);
  if (!node) return schema === true;
  if (Object.keys(node).filter((key) => key !== "description" && key !== "title").length === 0) return true;
  const type = node["type"];
  if (type === "null" || (Array.isArray(type) && type.includes("null"))) return true;
  if ("const" in node && node["const"] === null) return true;
  if (Array.isArray(node["enum"]) && node["enum"].includes(null)) return true;
  const branches = node["anyOf"] ?? node["oneOf"];
  return Array.isArray(branches) && branches.some((branch) => acceptsNull(branch, root));
}
