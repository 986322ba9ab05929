import { z } from "zod";

/** Each stand-in's schema, built on the call. */
const standIns = new WeakMap<object, () => object>();

/** `schema`, or what a stand-in (`lazySchema`) stands for, built now. */
export function builtSchema<S>(schema: S): S {
  const build = typeof schema === "object" && schema !== null ? standIns.get(schema) : undefined;
  return build === undefined ? schema : (build() as S);
}

interface Definition {
  [key: string]: unknown;
  shape?: Record<string, unknown>;
  options?: unknown[];
  items?: unknown[];
}

// Where zod keeps the schemas a schema is made of (not `getter`: z.lazy builds on its own).
const childKeys = ["innerType", "element", "in", "out", "left", "right", "keyType", "valueType", "catchall", "rest"];

const definitionOf = (schema: unknown): Definition | undefined =>
  (schema as { _zod?: { def?: Definition } } | undefined)?._zod?.def;

/** Replaces `holder[key]` when it is a stand-in (a data property only: getters of recursive shapes stay). */
function replaceStandIn(holder: object, key: string | number, seen: Set<object>): void {
  const descriptor = Object.getOwnPropertyDescriptor(holder, key);
  if (descriptor === undefined || !("value" in descriptor)) return;
  const child = descriptor.value as unknown;
  const built = builtSchema(child);
  if (built !== child && descriptor.writable) (holder as Record<string | number, unknown>)[key] = built;
  resolveStandIns(built, seen);
}

/**
 * Puts the built schemas in place of the stand-ins a schema was made of, at any depth, once: a parse
 * then never passes through a stand-in (a Proxy's trap on every touch), only the schema built first.
 */
function resolveStandIns(schema: unknown, seen: Set<object>): void {
  if (typeof schema !== "object" || schema === null || seen.has(schema)) return;
  seen.add(schema);
  const definition = definitionOf(schema);
  if (definition === undefined) return;
  for (const key of childKeys) replaceStandIn(definition, key, seen);
  for (const list of [definition.options, definition.items])
    if (Array.isArray(list)) for (let index = 0; index < list.length; index += 1) replaceStandIn(list, index, seen);
  const shape = definition.shape;
  if (shape !== undefined && shape !== null) for (const key of Object.keys(shape)) replaceStandIn(shape, key, seen);
}

/**
 * A schema built on first use, not at import: a start-up builds only the
 * schemas its first requests need (the MCP `initialize` answer needs none).
 * What is returned stands for the schema everywhere (parse, compose, convert
 * to JSON Schema); the schema is built once, on the first touch, and kept.
 * Once built, the stand-ins it was composed of are replaced by their schemas
 * inside it, so parsing costs what the eager schema's parse costs.
 *
 * Its description and other metadata (`.describe()`, `.meta()`) are registered
 * for the stand-in too, so a JSON Schema conversion finds them either way.
 */
export function lazySchema<S extends object>(build: () => S): S {
  let built: S | undefined;
  const schema = (): S => {
    if (built === undefined) {
      built = build();
      const metadata = z.globalRegistry.get(built as unknown as z.ZodType);
      // An `id` names one schema in the registry: the stand-in shares the rest, not the id.
      if (metadata !== undefined) {
        const { id: _id, ...shared } = metadata;
        z.globalRegistry.add(standIn as unknown as z.ZodType, shared);
      }
      resolveStandIns(built, new Set());
    }
    return built;
  };
  const standIn = new Proxy(Object.create(null) as S, {
    get: (_target, key) => Reflect.get(schema(), key),
    has: (_target, key) => Reflect.has(schema(), key),
    set: (_target, key, value) => Reflect.set(schema(), key, value),
    ownKeys: () => Reflect.ownKeys(schema()),
    getOwnPropertyDescriptor: (_target, key) => {
      const descriptor = Reflect.getOwnPropertyDescriptor(schema(), key);
      // Reported configurable: the stand-in's own (empty) target must not contradict it.
      return descriptor === undefined ? undefined : { ...descriptor, configurable: true };
    },
    getPrototypeOf: () => Reflect.getPrototypeOf(schema()),
    defineProperty: (_target, key, descriptor) => Reflect.defineProperty(schema(), key, descriptor),
    deleteProperty: (_target, key) => Reflect.deleteProperty(schema(), key),
  });
  standIns.set(standIn, schema);
  return standIn;
}
