import type { JsonSchema } from "../json-schema.ts";

/**
 * A value of a type the property schema does not accept, chosen by `pick`
 * (same schema and pick, same value), or undefined when the schema accepts
 * anything. An enum gets a string that is none of its options, a const an
 * object; a nullable type (`["string", "null"]`) a wrong value for its
 * non-null type. The values stay clear of what the surfaces coerce ("3" for
 * a number, "true" for a boolean): " 3 ", "TRUE" and " true" are refused.
 */
export function wrongValueFor(schema: JsonSchema, pick: number): unknown {
  if (Array.isArray(schema["enum"])) return `not-one-of-the-options-${pick}`;
  if ("const" in schema) return { not: "the constant" };
  const choose = <T>(values: readonly T[]): T => values[pick % values.length] as T;
  const type = schema["type"];
  if (Array.isArray(type)) {
    const nonNull = type.filter((item) => item !== "null");
    return type.length === 2 && nonNull.length === 1 ? wrongValueFor({ ...schema, type: nonNull[0] }, pick) : undefined;
  }
  switch (type) {
    case "string":
      return choose([12_345, ["x"], true, -1.5]);
    case "number":
    case "integer":
      return choose(["abc", "0x3", " 3 ", "1e400", { n: 1 }, [1], true]);
    case "boolean":
      return choose(["maybe", "TRUE", " true", 7, { b: true }]);
    case "array":
      return choose(["not a list", 42, true, -1.5]);
    case "object":
      return choose(["not an object", 42, [1, 2], true]);
    default:
      return undefined;
  }
}

/** The properties `wrongValueFor` has a wrong value for, in the schema's order. */
export function fieldsWithWrongValues(properties: Readonly<Record<string, JsonSchema>> | undefined): string[] {
  return Object.entries(properties ?? {})
    .filter(([, schema]) => wrongValueFor(schema, 0) !== undefined)
    .map(([name]) => name);
}

/**
 * Text that does not parse as JSON: `text` cut at a point chosen by `pick`,
 * on one line (line breaks become spaces) and never blank; a cut that still
 * parses ("12" -> "1") gets "}{" appended.
 */
export function brokenJson(text: string, pick: number): string {
  const flat = text.replace(/[\r\n]/g, " ");
  const cut = flat.length > 1 ? flat.slice(0, 1 + (pick % (flat.length - 1))) : `${flat}{`;
  const broken = cut.trim() === "" ? `${cut}{` : cut;
  return parses(broken) ? `${broken}}{` : broken;
}

function parses(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
