/**
 * JSON Schemas a caller sends (an agent intent's offered tools, a task's
 * available tools) are compiled to validators whose `pattern`s then run on
 * text the caller (or its model) also chooses. A pattern such as `^(a+)+$`
 * backtracks exponentially and would hold the event loop, and with it every
 * request, for minutes. The services turn on V8's linear-time engine for
 * expressions that backtrack too much (same answers); what that engine cannot
 * run is refused up front: backreferences, lookarounds, and `{n,m}`
 * repetitions nested with other quantifiers (it runs only small ones, and
 * which is not documented).
 */

interface GroupFrame {
  quantified: boolean;
  bounded: boolean;
  alternation: boolean;
}

const boundedQuantifier = /^\{\d+(,\d*)?\}/;

/** Why `pattern` could backtrack without bound, or undefined when the linear-time fallback covers it. */
export function patternHazard(pattern: string): string | undefined {
  const stack: GroupFrame[] = [{ quantified: false, bounded: false, alternation: false }];
  let inClass = false;
  let closed: GroupFrame | undefined;
  for (let index = 0; index < pattern.length; index += 1) {
    const char = pattern[index] as string;
    const justClosed = closed;
    closed = undefined;
    if (char === "\\") {
      const next = pattern[index + 1];
      if (!inClass && next !== undefined && (/[1-9]/.test(next) || (next === "k" && pattern[index + 2] === "<")))
        return "it uses a backreference";
      index += 1;
      continue;
    }
    if (inClass) {
      if (char === "]") inClass = false;
      continue;
    }
    if (char === "[") {
      inClass = true;
      continue;
    }
    if (char === "(") {
      const kind = pattern.slice(index + 1, index + 4);
      if (kind.startsWith("?=") || kind.startsWith("?!") || kind === "?<=" || kind === "?<!")
        return "it uses a lookaround";
      stack.push({ quantified: false, bounded: false, alternation: false });
      continue;
    }
    if (char === ")") {
      if (stack.length > 1) closed = stack.pop();
      continue;
    }
    const frame = stack[stack.length - 1] as GroupFrame;
    if (char === "|") {
      frame.alternation = true;
      continue;
    }
    const bounded = char === "{" && boundedQuantifier.test(pattern.slice(index));
    if (!bounded && char !== "*" && char !== "+" && char !== "?") continue;
    // A `?` after another quantifier makes it lazy; it is no quantifier of its own.
    if (char === "?" && justClosed === undefined && "*+?}".includes(pattern[index - 1] ?? "")) continue;
    if (justClosed !== undefined) {
      if (bounded && (justClosed.quantified || justClosed.alternation))
        return "it repeats with {n,m} a group that holds a quantifier or an alternation";
      if (justClosed.bounded && char !== "?") return "it repeats a group that holds a {n,m} quantifier";
      frame.bounded ||= justClosed.bounded;
    }
    frame.quantified = true;
    if (bounded) {
      frame.bounded = true;
      index = pattern.indexOf("}", index);
    }
  }
  return undefined;
}

/** Schema keywords whose values are data, not schemas: their keys and strings are never patterns. */
const dataKeywords = new Set(["const", "enum", "default", "examples"]);

/** A pattern in a JSON Schema that could backtrack without bound: where it is (below the schema) and why. */
export interface PatternIssue {
  path: Array<string | number>;
  message: string;
}

/** Every `pattern` and `patternProperties` key in a JSON Schema that could backtrack without bound. */
export function unsafePatterns(schema: unknown): PatternIssue[] {
  const issues: PatternIssue[] = [];
  const visit = (node: unknown, path: Array<string | number>) => {
    if (node === null || typeof node !== "object") return;
    if (Array.isArray(node)) {
      node.forEach((item, index) => visit(item, [...path, index]));
      return;
    }
    for (const [key, value] of Object.entries(node)) {
      if (dataKeywords.has(key)) continue;
      if (key === "pattern" && typeof value === "string") {
        const hazard = patternHazard(value);
        if (hazard)
          issues.push({
            path: [...path, "pattern"],
            message: `cannot be enforced safely: ${hazard}, which can take exponential time to check; simplify it`,
          });
        continue;
      }
      if (key === "patternProperties" && value !== null && typeof value === "object" && !Array.isArray(value)) {
        for (const property of Object.keys(value)) {
          const hazard = patternHazard(property);
          if (hazard)
            issues.push({
              path: [...path, "patternProperties"],
              message: `the pattern ${JSON.stringify(property)} cannot be enforced safely: ${hazard}, which can take exponential time to check; simplify it`,
            });
        }
      }
      visit(value, [...path, key]);
    }
  };
  visit(schema, []);
  return issues;
}

/** The subschema a local `$ref` ("#", "#/$defs/a", "#/properties/x/items") points to, if any. */
function resolveLocalRef(root: unknown, ref: string): unknown {
  if (ref !== "#" && !ref.startsWith("#/")) return undefined;
  let node: unknown = root;
  for (const raw of ref === "#" ? [] : ref.slice(2).split("/")) {
    const key = decodeURIComponent(raw).replaceAll("~1", "/").replaceAll("~0", "~");
    if (node === null || typeof node !== "object") return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

/** Keywords that apply their subschemas to the same value (no part of it is consumed on the way). */
const sameValueKeywords = ["allOf", "anyOf", "oneOf"] as const;

/**
 * Every local `$ref` in a JSON Schema that leads back to itself without
 * describing any part of the value on the way (`a: {$ref: a}`, `a -> b -> a`,
 * `a: {allOf: [{$ref: a}]}`): checking a value against it never ends (the
 * validator's stack overflows). A `$ref` reached again through `properties`,
 * `items` and the like is a recursive schema and fine.
 */
export function endlessRefs(schema: unknown): PatternIssue[] {
  const issues: PatternIssue[] = [];
  // The subschemas checked against the same value as `node`.
  const sameValue = (node: unknown): unknown[] => {
    if (node === null || typeof node !== "object" || Array.isArray(node)) return [];
    const record = node as Record<string, unknown>;
    const next: unknown[] = [];
    if (typeof record["$ref"] === "string") next.push(resolveLocalRef(schema, record["$ref"]));
    for (const keyword of sameValueKeywords)
      if (Array.isArray(record[keyword])) next.push(...(record[keyword] as unknown[]));
    if (record["not"] !== undefined) next.push(record["not"]);
    return next.filter((item) => item !== null && typeof item === "object");
  };
  const leadsBack = (start: object): boolean => {
    const seen = new Set<unknown>();
    const stack = sameValue(start);
    while (stack.length > 0) {
      const node = stack.pop();
      if (node === start) return true;
      if (seen.has(node)) continue;
      seen.add(node);
      stack.push(...sameValue(node));
    }
    return false;
  };
  const visit = (node: unknown, path: Array<string | number>) => {
    if (node === null || typeof node !== "object") return;
    if (Array.isArray(node)) {
      node.forEach((item, index) => visit(item, [...path, index]));
      return;
    }
    const record = node as Record<string, unknown>;
    if (typeof record["$ref"] === "string" && leadsBack(record)) {
      issues.push({
        path: [...path, "$ref"],
        message: `${JSON.stringify(record["$ref"])} leads back to itself without describing any value, so checking a value would never end; describe a value (type, properties, items) on the way`,
      });
      return;
    }
    for (const [key, value] of Object.entries(record)) if (!dataKeywords.has(key)) visit(value, [...path, key]);
  };
  visit(schema, []);
  return issues;
}

/** How many subschemas a caller's JSON Schema may expand to through its `$ref`s (see `schemaExpansion`). */
export const maxSchemaExpansion = 10_000;

/**
 * A JSON Schema whose `$ref`s expand it past `maxSchemaExpansion` subschemas
 * (`d0: {allOf: [d1, d1]}, d1: {allOf: [d2, d2]}, ...`: a 2 KB schema that
 * checks one value 2^40 times and holds the process), as one issue at the
 * schema; empty otherwise. A `$ref` back into a subschema it is already
 * inside (a recursive schema) counts once: each further round needs a part of
 * the value to check. The walk stops at the limit, so it is cheap whatever the schema.
 */
export function schemaExpansion(schema: unknown): PatternIssue[] {
  let count = 0;
  const expanding = new Set<unknown>();
  const visit = (node: unknown): boolean => {
    if (node === null || typeof node !== "object") return true;
    count += 1;
    if (count > maxSchemaExpansion) return false;
    const children = Array.isArray(node)
      ? node
      : Object.entries(node as Record<string, unknown>)
          .filter(([key]) => !dataKeywords.has(key))
          .map(([, value]) => value);
    for (const child of children) if (!visit(child)) return false;
    const ref = Array.isArray(node) ? undefined : (node as Record<string, unknown>)["$ref"];
    if (typeof ref === "string") {
      const target = resolveLocalRef(schema, ref);
      if (target !== null && typeof target === "object" && !expanding.has(target)) {
        expanding.add(target);
        const within = visit(target);
        expanding.delete(target);
        if (!within) return false;
      }
    }
    return true;
  };
  if (visit(schema)) return [];
  return [
    {
      path: [],
      message: `expands to more than ${maxSchemaExpansion} subschemas through its $refs, which would take too long to check; use fewer nested references`,
    },
  ];
}
