import { isAbsolute, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { ConfigError } from "@deliberate/base";
import type { DeliberateModule } from "./define-module.ts";

function isModule(value: unknown): value is DeliberateModule {
  if (typeof value !== "object" || value === null) return false;
  const candidate = value as Record<string, unknown>;
  return typeof candidate["name"] === "string" && (Array.isArray(candidate["tools"]) || candidate["migrations"] !== undefined || Array.isArray(candidate["sessionSections"]));
}

/**
 * Loads modules named in configuration (`DELIBERATE_MODULES`): each entry is a
 * package name or a file path (relative to the working directory) whose
 * default export, or one named export, is a module made with `defineModule`.
 * So a new package plugs into a service with no edit to the service.
 */
export async function loadModules(specifiers: readonly string[]): Promise<DeliberateModule[]> {
  const loaded: DeliberateModule[] = [];
  for (const specifier of specifiers) {
    const target = specifier.startsWith(".") || isAbsolute(specifier) ? pathToFileURL(resolve(specifier)).href : specifier;
    let exports: Record<string, unknown>;
    try {
      exports = (await import(target)) as Record<string, unknown>;
    } catch (error) {
      throw new ConfigError(`DELIBERATE_MODULES: cannot load '${specifier}': ${(error as Error).message}`, ["DELIBERATE_MODULES"]);
    }
    const candidates = [exports["default"], ...Object.entries(exports).filter(([key]) => key !== "default").map(([, value]) => value)].filter(isModule);
    const module = candidates[0];
    if (module === undefined) {
      throw new ConfigError(`DELIBERATE_MODULES: '${specifier}' exports no module (export one made with defineModule, as default or by name).`, ["DELIBERATE_MODULES"]);
    }
    loaded.push(module);
  }
  return loaded;
}
