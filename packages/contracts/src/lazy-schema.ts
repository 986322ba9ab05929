import { z } from "zod";

/**
 * A schema built on first use, not at import: a start-up builds only the
 * schemas its first requests need (the MCP `initialize` answer needs none).
 * What is returned stands for the schema everywhere (parse, compose, convert
 * to JSON Schema); the schema is built once, on the first touch, and kept.
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
  return standIn;
}
