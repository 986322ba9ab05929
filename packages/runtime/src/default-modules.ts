import { dialogModule } from "@deliberate/dialog";
import {
  type DeliberateModule,
  type ModuleEnvironment,
  readEnvironmentVariables,
  reportEnvironment,
} from "@deliberate/engine";
import {
  createKnowledgeGraphModule,
  type KnowledgeGraphOptions,
  knowledgeGraphEnvironment,
} from "@deliberate/knowledge-graph";
import { reasoningModule } from "@deliberate/reasoning";
import {
  createSelfImprovementModule,
  type SelfImprovementOptions,
  selfImprovementEnvironment,
} from "@deliberate/self-improvement";
import type { EnvReader } from "./env-reader.ts";

/**
 * The default modules' options, as read from the environment their modules declare (`ModuleEnvironment`), and
 * what the configuration report shows of them (per module: every variable's value or default, secrets hidden).
 * Services carry it from their config to `defaultModules` and `createRuntime` without looking inside.
 */
export interface ModuleSettings {
  readonly knowledgeGraph: Partial<KnowledgeGraphOptions>;
  readonly selfImprovement: SelfImprovementOptions;
  readonly report: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
}

/**
 * Reads one module's declared variables with `reader` (each bad one noted, named, with the service's own), then
 * turns them into its options (a `ConfigError` from that is noted too); `fallback` when anything was wrong
 * (never served: the reader's `finish` throws first).
 */
export function readModuleEnvironment<Options>(
  reader: EnvReader,
  environment: ModuleEnvironment<Options>,
  fallback: Options,
): { options: Options; report: Record<string, unknown> } {
  const { values, problems } = readEnvironmentVariables(reader.env, environment.variables);
  for (const problem of problems) reader.problem(problem.message, problem.variables);
  const options = problems.length === 0 ? reader.attempt(() => environment.toOptions(values), fallback) : fallback;
  return { options, report: reportEnvironment(environment.variables, values) };
}

/** Reads the environments the default modules declare (see `ModuleSettings`). */
export function readModuleSettings(reader: EnvReader): ModuleSettings {
  const knowledgeGraph = readModuleEnvironment(reader, knowledgeGraphEnvironment, {});
  const selfImprovement = readModuleEnvironment(reader, selfImprovementEnvironment, {});
  return {
    knowledgeGraph: knowledgeGraph.options,
    selfImprovement: selfImprovement.options,
    report: {
      [knowledgeGraphEnvironment.module]: knowledgeGraph.report,
      [selfImprovementEnvironment.module]: selfImprovement.report,
    },
  };
}

/**
 * The modules every service serves, in order: reasoning, dialog, then `serviceModules` (a service's own,
 * such as the HTTP API's agent-intent decision), the knowledge graph, and self-improvement when the module
 * settings are given (its loop runs in every service; DELIBERATE_SELF_IMPROVEMENT_MODE=off stops its actions).
 * A module in `replacedBy` (a service's or a test's own instance) takes the place of the default of its name.
 * Plug-in modules (`DELIBERATE_MODULES`) come after them.
 */
export function defaultModules(options: {
  knowledgeGraph: Partial<KnowledgeGraphOptions>;
  moduleSettings?: ModuleSettings;
  serviceModules?: readonly DeliberateModule[];
  replacedBy?: readonly DeliberateModule[];
}): DeliberateModule[] {
  const replaced = new Set((options.replacedBy ?? []).map((module) => module.name));
  return [
    reasoningModule,
    dialogModule as DeliberateModule,
    ...(options.serviceModules ?? []),
    createKnowledgeGraphModule(options.knowledgeGraph) as DeliberateModule,
    ...(options.moduleSettings !== undefined && !replaced.has(selfImprovementEnvironment.module)
      ? [createSelfImprovementModule(options.moduleSettings.selfImprovement) as DeliberateModule]
      : []),
  ].filter((module) => !replaced.has(module.name));
}
