import type { ToolDefinition } from "@deliberate/contracts";
import type { Repositories, Store, StoreContribution } from "@deliberate/store";
import type { ModeSettings } from "./mode-settings.ts";
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

/** Work a service runs on a cycle while it is up (e.g. expiring idle sessions). */
export interface BackgroundTask<Extra extends object = object> {
  readonly name: string;
  /** Milliseconds between runs. */
  readonly intervalMs: number;
  run(context: BackgroundTaskContext<Extra>): Promise<void>;
}

export interface BackgroundTaskContext<Extra extends object = object> {
  readonly store: Store<Extra>;
  readonly now: Date;
  readonly signal: AbortSignal;
}

/**
 * A module: the unit that brings capabilities to the engine. Adding a tool
 * touches its module and its schema in contracts, nothing else.
 */
export interface DeliberateModule<Extra extends object = object> extends StoreContribution<Extra> {
  /** Unique among composed modules; also the owner of its migrations. */
  readonly name: string;
  readonly tools?: readonly ToolHandler<ToolDefinition, Extra>[];
  /** Mode ids this module registers, with their default model settings. */
  readonly modes?: Readonly<Record<string, ModeSettings>>;
  readonly sessionSections?: readonly SessionSection<Extra>[];
  readonly methods?: readonly ProtocolMethod[];
  readonly tasks?: readonly BackgroundTask<Extra>[];
  /** Facts the module publishes about itself (e.g. a capability object), by key, for services to advertise. */
  readonly capabilities?: Readonly<Record<string, unknown>>;
}

/** Declares a module (identity, typed). Composition checks happen in `createEngine`. */
export function defineModule<Extra extends object = object>(module: DeliberateModule<Extra>): DeliberateModule<Extra> {
  return module;
}

/** What composing modules yields; throws naming the clash when two modules claim one name. */
export interface Composition {
  readonly handlers: ReadonlyMap<string, ToolHandler<ToolDefinition, object>>;
  readonly modes: Readonly<Record<string, ModeSettings>>;
  readonly sections: readonly SessionSection[];
  readonly methods: ReadonlyMap<string, ProtocolMethod>;
  readonly tasks: readonly BackgroundTask[];
  readonly capabilities: Readonly<Record<string, unknown>>;
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
  const clash = (what: string, name: string, module: string) => new Error(`${what} '${name}' of module ${module} is already registered by another module`);
  for (const module of modules) {
    if (names.has(module.name)) throw new Error(`Module '${module.name}' is composed twice`);
    names.add(module.name);
    for (const handler of module.tools ?? []) {
      if (handlers.has(handler.definition.name)) throw clash("Tool", handler.definition.name, module.name);
      handlers.set(handler.definition.name, handler as ToolHandler<ToolDefinition, object>);
    }
    for (const [mode, settings] of Object.entries(module.modes ?? {})) {
      if (modeOwners.has(mode)) throw clash("Mode", mode, module.name);
      modeOwners.set(mode, module.name);
      modes[mode] = settings;
    }
    for (const section of module.sessionSections ?? []) {
      if (section.name === "session" || section.name === "thoughts" || sections.some((known) => known.name === section.name)) throw clash("Session section", section.name, module.name);
      sections.push(section as SessionSection);
    }
    for (const method of module.methods ?? []) {
      if (methods.has(method.method)) throw clash("Method", method.method, module.name);
      methods.set(method.method, method as ProtocolMethod);
    }
    tasks.push(...((module.tasks ?? []) as BackgroundTask[]));
    for (const [key, value] of Object.entries(module.capabilities ?? {})) {
      if (key in capabilities) throw clash("Capability", key, module.name);
      capabilities[key] = value;
    }
  }
  for (const method of methods.values()) {
    if (!handlers.has(method.tool)) throw new Error(`Method '${method.method}' names tool '${method.tool}', which no composed module registers`);
  }
  return { handlers, modes, sections, methods, tasks, capabilities };
}
