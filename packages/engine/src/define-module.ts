import type { ToolDefinition } from "@deliberate/contracts";
import type { ModelRouter } from "@deliberate/providers";
import type { Repositories, Store, StoreContribution } from "@deliberate/store";
import type { Clock } from "./clock.ts";
import type { InvocationEvent } from "./engine-types.ts";
import type { IdGenerator } from "./ids.ts";
import { type ModeEntry, modeSettingsOf } from "./mode-definition.ts";
import type { ModeSettings, RuntimeSettingsSource } from "./mode-settings.ts";
import { type ComposedOperation, composeOperation, type ModuleOperation } from "./module-operation.ts";
import type { ModulePrompt } from "./module-prompt.ts";
import type { ToolHandler } from "./tool-handler.ts";

/**
 * How a module's records appear in a session's exports, resources and the
 * viewer: `read` returns the section's data for a session (undefined when the
 * session has none), the renderers turn it into Markdown and Mermaid lines.
 */
export interface SessionSection<Extra extends object = object> {
  /** The key of the section in a session record; unique across modules. */
  readonly name: string;
  read(store: Repositories<Extra>, sessionId: string): Promise<unknown>;
  /** Markdown of the section (a "## Heading" and its body). */
  markdown?(data: unknown): string;
  /** Mermaid flowchart lines (without the `flowchart` header); `node(id)` gives a stable node name for a record id. */
  mermaid?(data: unknown, node: (recordId: string) => string): string[];
}

/**
 * A custom JSON-RPC method (e.g. `reasoning/executeTask`), served by the MCP
 * server as a request handler and by the HTTP API under /v1/methods. Runs
 * through the engine like a tool: validated, recorded, host-executable.
 */
export interface ProtocolMethod {
  readonly method: string;
  /** The tool that implements it (its definition's input schema is the method's params). */
  readonly tool: string;
}

/**
 * Work a service runs on a cycle while it is up (e.g. expiring idle sessions),
 * through the engine's task runner (`createTaskRunner`).
 */
export interface BackgroundTask<Extra extends object = object> {
  /** Unique among the composed modules' tasks. */
  readonly name: string;
  /** Milliseconds between the end of one run and the start of the next. */
  readonly intervalMs: number;
  /**
   * Runs once when the service starts its tasks, before it serves (the
   * runner awaits it): e.g. restoring state from the module's tables.
   */
  start?(context: BackgroundTaskContext<Extra>): Promise<void>;
  run(context: BackgroundTaskContext<Extra>): Promise<void>;
  /** Runs once when the service stops, after the last run ended (e.g. releasing a lease); errors are logged. */
  stop?(context: BackgroundTaskContext<Extra>): Promise<void>;
}

/** What a background task may touch: the store, the engine's models and settings, time and ids. */
export interface BackgroundTaskContext<Extra extends object = object> {
  readonly store: Store<Extra>;
  readonly now: Date;
  /** Aborted when the service stops. */
  readonly signal: AbortSignal;
  /** The engine's server-side models (provider `host` when there is none). */
  readonly models: ModelRouter;
  /** The model settings a mode runs with now (defaults, configuration, runtime overrides). */
  readonly settings: (mode: string) => ModeSettings;
  /** Every registered mode id. */
  readonly modes: readonly string[];
  /** The concurrency tool calls run with now. */
  readonly concurrency: () => number;
  readonly clock: Clock;
  readonly ids: IdGenerator;
  /** Writes a line to the service's log. */
  readonly log: (level: "debug" | "info" | "warn" | "error", message: string, fields?: Record<string, unknown>) => void;
}

/**
 * A module: the unit that brings capabilities to the engine. Adding a tool
 * touches its module and its schema in contracts, nothing else.
 */
/**
 * The version of the module contract (`DeliberateModule`) this engine implements. `defineModule` stamps it on
 * every module, and `loadModules` refuses a module built against another version with an error saying so,
 * instead of failing later in a way that names neither. Raised when the contract changes incompatibly.
 */
export const moduleSpecificationVersion = 1;
/** The contract versions this engine can load (today only its own). */
export const supportedModuleSpecificationVersions: readonly number[] = [moduleSpecificationVersion];

/**
 * The brand `defineModule` puts on a module: a registered symbol, so a module bundled with its own copy
 * of @deliberate/engine (loaded from outside the service's code) carries the same brand.
 */
export const moduleBrand: unique symbol = Symbol.for("@deliberate/engine.module");

export interface DeliberateModule<Extra extends object = object> extends StoreContribution<Extra> {
  /** Unique among composed modules; also the owner of its migrations. */
  readonly name: string;
  /** The module-contract version the module was built against (set by `defineModule`; checked by `loadModules`). */
  readonly specificationVersion?: number;
  /** Set by `defineModule`: marks the object as a module (see `moduleBrand`). */
  readonly [moduleBrand]?: true;
  readonly tools?: readonly ToolHandler<ToolDefinition, Extra>[];
  /**
   * The modes this module registers, each with its default model settings: its mode definitions (`defineMode`
   * with `settings`) or declarations (`{ mode, settings }`, for modes whose definitions are built per call).
   * The record form (mode id -> settings) of modules built before settings moved onto modes is still read.
   */
  readonly modes?: readonly ModeEntry[] | Readonly<Record<string, ModeSettings>>;
  readonly sessionSections?: readonly SessionSection<Extra>[];
  readonly methods?: readonly ProtocolMethod[];
  readonly tasks?: readonly BackgroundTask<Extra>[];
  /** Facts the module publishes about itself (e.g. a capability object), by key, for services to advertise. */
  readonly capabilities?: Readonly<Record<string, unknown>>;
  /**
   * Settings the module changes while the service runs (e.g. self-improvement):
   * layered over the defaults and configuration, read on every model call.
   */
  readonly runtimeSettings?: RuntimeSettingsSource;
  /** Told of every finished invocation, after its row is written (must not throw; errors are ignored). */
  readonly onInvocation?: (event: InvocationEvent) => void;
  /** Prompts the module offers hosts, each leading to one of its tools. */
  readonly prompts?: readonly ModulePrompt[];
  /**
   * Named groups of tools a service can serve on their own (`DELIBERATE_TOOLSETS`), by toolset name.
   * A tool the module lists in none belongs to the toolset named after the module. Two modules may add to one toolset.
   */
  readonly toolsets?: Readonly<Record<string, readonly string[]>>;
  /**
   * Named reads and changes of the module's own records (e.g. self-improvement's status and rollback), which
   * services mount generically: the HTTP API under `/v1/<module name>` (and in /openapi.json), the MCP server as
   * custom requests `<module name>/<operation>`. See `ModuleOperation`.
   */
  // biome-ignore lint/suspicious/noExplicitAny: each operation has its own input and output schemas.
  readonly operations?: readonly ModuleOperation<Extra, any, any>[];
}

/** A module as `defineModule` returns it: branded, with the contract version it was built against. */
export type DefinedModule<Extra extends object = object> = DeliberateModule<Extra> & {
  readonly specificationVersion: number;
  readonly [moduleBrand]: true;
};

/**
 * Declares a module: typed, branded and stamped with the contract version (`moduleSpecificationVersion`).
 * Composition checks happen in `createEngine`; version checks in `loadModules`.
 */
export function defineModule<Extra extends object = object>(module: DeliberateModule<Extra>): DefinedModule<Extra> {
  return { ...module, specificationVersion: moduleSpecificationVersion, [moduleBrand]: true };
}

/** What composing modules yields; throws naming the clash when two modules claim one name. */
export interface Composition {
  readonly handlers: ReadonlyMap<string, ToolHandler<ToolDefinition, object>>;
  readonly modes: Readonly<Record<string, ModeSettings>>;
  readonly sections: readonly SessionSection[];
  readonly methods: ReadonlyMap<string, ProtocolMethod>;
  readonly tasks: readonly BackgroundTask[];
  readonly capabilities: Readonly<Record<string, unknown>>;
  readonly runtimeSources: readonly RuntimeSettingsSource[];
  readonly invocationObservers: ReadonlyArray<(event: InvocationEvent) => void>;
  readonly prompts: readonly ModulePrompt[];
  /** Toolset name -> the tools in it (every composed tool is in exactly one). */
  readonly toolsets: ReadonlyMap<string, readonly string[]>;
  /** Every module's operations, by qualified name (`<module>/<operation>`). */
  readonly operations: ReadonlyMap<string, ComposedOperation>;
}

export function composeModules(modules: readonly DeliberateModule[]): Composition {
  const names = new Set<string>();
  const handlers = new Map<string, ToolHandler<ToolDefinition, object>>();
  const modes: Record<string, ModeSettings> = {};
  const modeOwners = new Map<string, string>();
  const sections: SessionSection[] = [];
  const methods = new Map<string, ProtocolMethod>();
  const tasks: BackgroundTask[] = [];
  const capabilities: Record<string, unknown> = {};
  const runtimeSources: RuntimeSettingsSource[] = [];
  const invocationObservers: Array<(event: InvocationEvent) => void> = [];
  const prompts: ModulePrompt[] = [];
  const toolsets = new Map<string, string[]>();
  const operations = new Map<string, ComposedOperation>();
  const clash = (what: string, name: string, module: string) =>
    new Error(`${what} '${name}' of module ${module} is already registered by another module`);
  for (const module of modules) {
    if (names.has(module.name)) throw new Error(`Module '${module.name}' is composed twice`);
    names.add(module.name);
    for (const handler of module.tools ?? []) {
      if (handlers.has(handler.definition.name)) throw clash("Tool", handler.definition.name, module.name);
      handlers.set(handler.definition.name, handler as ToolHandler<ToolDefinition, object>);
    }
    const declared = Array.isArray(module.modes)
      ? modeSettingsOf(module.name, module.modes as readonly ModeEntry[])
      : ((module.modes ?? {}) as Readonly<Record<string, ModeSettings>>);
    for (const [mode, settings] of Object.entries(declared)) {
      if (modeOwners.has(mode)) throw clash("Mode", mode, module.name);
      modeOwners.set(mode, module.name);
      modes[mode] = settings;
    }
    for (const section of module.sessionSections ?? []) {
      if (
        section.name === "session" ||
        section.name === "thoughts" ||
        sections.some((known) => known.name === section.name)
      )
        throw clash("Session section", section.name, module.name);
      sections.push(section as SessionSection);
    }
    for (const method of module.methods ?? []) {
      if (methods.has(method.method)) throw clash("Method", method.method, module.name);
      methods.set(method.method, method as ProtocolMethod);
    }
    for (const task of module.tasks ?? []) {
      if (tasks.some((known) => known.name === task.name)) throw clash("Task", task.name, module.name);
      tasks.push(task as BackgroundTask);
    }
    if (module.runtimeSettings) runtimeSources.push(module.runtimeSettings);
    if (module.onInvocation) invocationObservers.push(module.onInvocation);
    for (const [key, value] of Object.entries(module.capabilities ?? {})) {
      if (key in capabilities) throw clash("Capability", key, module.name);
      capabilities[key] = value;
    }
    for (const prompt of module.prompts ?? []) {
      if (prompts.some((known) => known.name === prompt.name)) throw clash("Prompt", prompt.name, module.name);
      prompts.push(prompt);
    }
    addToolsets(toolsets, module);
    addOperations(operations, module);
  }
  for (const method of methods.values()) {
    if (!handlers.has(method.tool))
      throw new Error(`Method '${method.method}' names tool '${method.tool}', which no composed module registers`);
  }
  for (const prompt of prompts) {
    if (!handlers.has(prompt.tool))
      throw new Error(`Prompt '${prompt.name}' leads to tool '${prompt.tool}', which no composed module registers`);
  }
  return {
    handlers,
    modes,
    sections,
    methods,
    tasks,
    capabilities,
    runtimeSources,
    invocationObservers,
    prompts,
    toolsets,
    operations,
  };
}

/** Adds a module's operations: names unique in the module, one operation per method and path, operationIds unique overall. */
function addOperations(operations: Map<string, ComposedOperation>, module: DeliberateModule): void {
  for (const operation of module.operations ?? []) {
    const composed = composeOperation(module.name, operation as ModuleOperation<object>);
    if (operations.has(composed.qualifiedName))
      throw new Error(`Operation '${operation.name}' of module ${module.name} is declared twice`);
    for (const known of operations.values()) {
      if (known.operationId === composed.operationId)
        throw new Error(
          `Operation '${operation.name}' of module ${module.name}: operationId '${composed.operationId}' is already used by ${known.qualifiedName}`,
        );
      if (known.method === composed.method && known.httpPath === composed.httpPath) {
        throw new Error(
          `Operation '${operation.name}' of module ${module.name}: ${composed.method.toUpperCase()} ${composed.httpPath} is already served by ${known.qualifiedName}`,
        );
      }
    }
    operations.set(composed.qualifiedName, composed);
  }
}

/** Adds a module's tools to their toolsets: listed ones where listed, the rest under the module's name. */
function addToolsets(toolsets: Map<string, string[]>, module: DeliberateModule): void {
  const own = new Set((module.tools ?? []).map((handler) => handler.definition.name));
  const placed = new Set<string>();
  for (const [toolset, tools] of Object.entries(module.toolsets ?? {})) {
    if (!/^[a-z][a-z0-9-]*$/.test(toolset))
      throw new Error(`Toolset '${toolset}' of module ${module.name}: names are lower-case kebab-case`);
    for (const tool of tools) {
      if (!own.has(tool))
        throw new Error(
          `Toolset '${toolset}' of module ${module.name} lists tool '${tool}', which the module does not register`,
        );
      if (placed.has(tool)) throw new Error(`Tool '${tool}' of module ${module.name} is listed in two toolsets`);
      placed.add(tool);
    }
    toolsets.set(toolset, [...(toolsets.get(toolset) ?? []), ...tools]);
  }
  const rest = [...own].filter((tool) => !placed.has(tool));
  if (rest.length > 0) toolsets.set(module.name, [...(toolsets.get(module.name) ?? []), ...rest]);
}
