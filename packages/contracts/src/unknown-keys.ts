import type { z } from "zod";

// Just enough of zod 4's internal definition to walk a schema to the object at a path.
interface SchemaDefinition {
  type?: string;
  shape?: Record<string, unknown>;
  innerType?: unknown;
  in?: unknown;
  out?: unknown;
  element?: unknown;
  options?: readonly unknown[];
  left?: unknown;
  right?: unknown;
  getter?: () => unknown;
}

const definitionOf = (schema: unknown): SchemaDefinition | undefined =>
  (schema as { _zod?: { def?: SchemaDefinition } } | undefined)?._zod?.def;

// Wrappers that hold one inner schema with the same keys (optional, default, preprocess pipes, ...).
function unwrapped(schema: unknown, depth = 0): unknown[] {
  const definition = definitionOf(schema);
  if (definition === undefined || depth > 20) return [];
  switch (definition.type) {
    case "optional":
    case "nullable":
    case "default":
    case "prefault":
    case "readonly":
    case "catch":
    case "nonoptional":
      return unwrapped(definition.innerType, depth + 1);
    case "pipe":
      // z.preprocess(fn, schema) is a pipe from a transform into the schema; a refining pipe keeps its input's keys.
      return [...unwrapped(definition.in, depth + 1), ...unwrapped(definition.out, depth + 1)];
    case "lazy":
      return definition.getter ? unwrapped(definition.getter(), depth + 1) : [];
    case "union":
      return (definition.options ?? []).flatMap((option) => unwrapped(option, depth + 1));
    case "intersection":
      return [...unwrapped(definition.left, depth + 1), ...unwrapped(definition.right, depth + 1)];
    default:
      return [schema];
  }
}

/**
 * The keys an object schema accepts at `path` inside `schema` (array indexes step into the
 * element schema); empty when the path does not lead to an object schema.
 */
export function knownKeysAt(schema: z.ZodType, path: readonly PropertyKey[]): string[] {
  let current: unknown[] = unwrapped(schema);
  for (const part of path) {
    current = current.flatMap((candidate) => {
      const definition = definitionOf(candidate);
      if (definition?.type === "object" && typeof part === "string" && definition.shape)
        return unwrapped(definition.shape[part]);
      if (definition?.type === "array" && typeof part === "number") return unwrapped(definition.element);
      if (definition?.type === "record") return [];
      return [];
    });
  }
  const keys = current.flatMap((candidate) => {
    const definition = definitionOf(candidate);
    return definition?.type === "object" && definition.shape ? Object.keys(definition.shape) : [];
  });
  return [...new Set(keys)];
}

/** Lower case without `_`, `-` or spaces: `max_iterations`, `maxIterations` and `Max-Iterations` read the same. */
const folded = (key: string) => key.toLowerCase().replace(/[_\-\s]/g, "");

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    for (let j = 1; j <= b.length; j += 1) {
      const substitution = (previous[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min((previous[j] as number) + 1, (current[j - 1] as number) + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length] as number;
}

/**
 * The known key an unknown key most likely meant: the same key in another case or
 * separator style (`max_iterations` → `maxIterations`), else the closest spelling within
 * a third of its length (`qualityTreshold` → `qualityThreshold`); undefined when none is close.
 */
export function closestKey(unknownKey: string, known: readonly string[]): string | undefined {
  const target = folded(unknownKey);
  const sameWords = known.find((key) => folded(key) === target);
  if (sameWords !== undefined) return sameWords;
  let best: { key: string; distance: number } | undefined;
  for (const key of known) {
    const distance = editDistance(target, folded(key));
    if (best === undefined || distance < best.distance) best = { key, distance };
  }
  return best !== undefined && best.distance <= Math.max(1, Math.floor(target.length / 3)) ? best.key : undefined;
}

/** The message for an unknown key: the likely spelling when there is one, else the keys accepted there. */
export function unknownKeyMessage(unknownKey: string, known: readonly string[]): string {
  const suggestion = closestKey(unknownKey, known);
  if (suggestion !== undefined) return `unknown field '${unknownKey}'; did you mean '${suggestion}'?`;
  if (known.length > 0) return `unknown field '${unknownKey}'; remove it (accepted here: ${known.join(", ")})`;
  return `unknown field '${unknownKey}'; remove it or check its spelling`;
}
