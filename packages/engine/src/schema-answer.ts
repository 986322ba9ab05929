/**
 * A plain, deterministic answer valid against a JSON Schema (the subset modes
 * publish: objects, arrays, enums, consts, ranges, lengths, `anyOf`, `allOf`
 * of `contains`, `propertyNames`, `uniqueItems`): what a calling agent that
 * follows the schema and nothing else would send. Strings name their path
 * (`answer.criteria.0`), so list items differ; numbers sit mid-range.
 */
export function answerFromSchema(schema: unknown, path = "answer"): unknown {
  if (schema === true || schema === undefined || schema === null || typeof schema !== "object") return path;
  const node = schema as Record<string, unknown>;
  if ("const" in node) return node["const"];
  if (Array.isArray(node["enum"])) return node["enum"][0];
  const branches = (node["anyOf"] ?? node["oneOf"]) as unknown[] | undefined;
  if (Array.isArray(branches) && branches.length > 0 && node["type"] === undefined && node["properties"] === undefined)
    return answerFromSchema(branches[0], path);
  const type = Array.isArray(node["type"])
    ? node["type"][0]
    : (node["type"] ?? (node["properties"] ? "object" : node["items"] ? "array" : undefined));
  switch (type) {
    case "object": {
      const properties = (node["properties"] ?? {}) as Record<string, unknown>;
      const required = (node["required"] as string[] | undefined) ?? [];
      const result: Record<string, unknown> = {};
      for (const key of required)
        result[key] = answerFromSchema(properties[key] ?? node["additionalProperties"], `${path}.${key}`);
      // A record with a minimum size: name its entries after the path.
      const minimum = (node["minProperties"] as number | undefined) ?? 0;
      for (let index = 1; Object.keys(result).length < minimum; index += 1) {
        const key = `${path.split(".").at(-1)} ${index}`;
        if (!(key in result)) result[key] = answerFromSchema(node["additionalProperties"], `${path}.${index}`);
      }
      // A branch of anyOf fixes what the base leaves open (e.g. which tool, and its arguments).
      if (Array.isArray(branches) && branches.length > 0)
        Object.assign(result, answerFromSchema(branches[0], path) as Record<string, unknown>);
      return result;
    }
    case "array": {
      const prefix = node["prefixItems"] as unknown[] | undefined;
      if (Array.isArray(prefix)) return prefix.map((item, index) => answerFromSchema(item, `${path}.${index}`));
      const contained = ((node["allOf"] as Array<{ contains?: { const?: unknown } }> | undefined) ?? []).flatMap(
        (part) => (part.contains && "const" in part.contains ? [part.contains.const] : []),
      );
      const minItems = (node["minItems"] as number | undefined) ?? 0;
      const maxItems = (node["maxItems"] as number | undefined) ?? Math.max(minItems, 2);
      const count = Math.min(maxItems, Math.max(minItems, 1, contained.length));
      const items: unknown[] = [...contained];
      for (let index = 0; items.length < count; index += 1)
        items.push(answerFromSchema(node["items"], `${path}.${index}`));
      return items.slice(0, Math.max(count, contained.length));
    }
    case "string": {
      const minLength = (node["minLength"] as number | undefined) ?? 0;
      const maxLength = (node["maxLength"] as number | undefined) ?? Number.POSITIVE_INFINITY;
      return path.padEnd(minLength, ".").slice(0, maxLength);
    }
    case "integer":
    case "number": {
      const low = (node["minimum"] as number | undefined) ?? (node["exclusiveMinimum"] as number | undefined) ?? 0;
      const high =
        (node["maximum"] as number | undefined) ?? (node["exclusiveMaximum"] as number | undefined) ?? low + 1;
      const middle = low + (Math.min(high, low + 1_000) - low) / 2;
      return type === "integer" ? Math.max(Math.ceil(low), Math.min(Math.floor(high), Math.round(middle))) : middle;
    }
    case "boolean":
      return false;
    case "null":
      return null;
    default:
      return path;
  }
}
