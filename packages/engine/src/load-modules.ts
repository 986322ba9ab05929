import { isAbsolute, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { ConfigError } from "@deliberate/base";
import {
  type DeliberateModule,
  moduleBrand,
  moduleSpecificationVersion,
  supportedModuleSpecificationVersions,
} from "./define-module.ts";

const variable = "DELIBERATE_MODULES";

function isBranded(value: unknown): boolean {
  return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[moduleBrand] === true;
}

/** Shaped like a module (a name and something to contribute), whether or not `defineModule` made it. */
function looksLikeModule(value: unknown): value is DeliberateModule {
  if (typeof value !== "object" || value === null) return false;
  const candidate = value as Record<string, unknown>;
  return (
    typeof candidate["name"] === "string" &&
    (Array.isArray(candidate["tools"]) ||
      candidate["migrations"] !== undefined ||
      Array.isArray(candidate["sessionSections"]))
  );
}

/**
 * The module a loaded entry exports, checked against the contract this engine implements:
 * made with `defineModule` (branded) and built for a supported `specificationVersion`.
 */
function moduleOf(specifier: string, exports: Record<string, unknown>): DeliberateModule {
  const values = [
    exports["default"],
    ...Object.entries(exports)
      .filter(([key]) => key !== "default")
      .map(([, value]) => value),
  ];
  const module = (values.find(isBranded) ?? values.find(looksLikeModule)) as DeliberateModule | undefined;
  if (module === undefined) {
    throw new ConfigError(
      `${variable}: '${specifier}' exports no module (export one made with defineModule, as default or by name).`,
      [variable],
    );
  }
  const rebuild = `rebuild it with defineModule from @deliberate/engine (module specification ${moduleSpecificationVersion})`;
  if (!isBranded(module)) {
    throw new ConfigError(
      `${variable}: '${specifier}' exports '${module.name}', which was not made with defineModule and declares no specificationVersion: ${rebuild}.`,
      [variable],
    );
  }
  const version = module.specificationVersion;
  if (version === undefined) {
    throw new ConfigError(
      `${variable}: module '${module.name}' from '${specifier}' declares no specificationVersion: ${rebuild}.`,
      [variable],
    );
  }
  if (!supportedModuleSpecificationVersions.includes(version)) {
    throw new ConfigError(
      `${variable}: module '${module.name}' from '${specifier}' is built for module specification ${String(version)}; this service supports ${supportedModuleSpecificationVersions.join(", ")}: ${rebuild}, or run a service that supports ${String(version)}.`,
      [variable],
    );
  }
  return module;
}

/**
 * Loads modules named in configuration (`DELIBERATE_MODULES`): each entry is a
 * package name or a file path (relative to the working directory) whose
 * default export, or one named export, is a module made with `defineModule`.
 * So a new package plugs into a service with no edit to the service. A module
 * not made with `defineModule`, or built for a module specification this
 * engine does not support, is refused with a ConfigError naming it.
 */
export async function loadModules(specifiers: readonly string[]): Promise<DeliberateModule[]> {
  const loaded: DeliberateModule[] = [];
  for (const specifier of specifiers) {
    const target =
      specifier.startsWith(".") || isAbsolute(specifier) ? pathToFileURL(resolve(specifier)).href : specifier;
    let exports: Record<string, unknown>;
    try {
      exports = (await import(target)) as Record<string, unknown>;
    } catch (error) {
      throw new ConfigError(`${variable}: cannot load '${specifier}': ${(error as Error).message}`, [variable]);
    }
    loaded.push(moduleOf(specifier, exports));
  }
  return loaded;
}
