import { ConfigError } from "@deliberate/base";
import { defineModuleEnvironment, readEnvironmentVariables } from "@deliberate/engine";
import { z } from "zod";
import { defaultKnowledgeGraphOptions, type KnowledgeGraphOptions } from "./options.ts";

type Environment = Readonly<Record<string, string | undefined>>;

const atLeastOne = z
  .string()
  .refine(
    (text) => /^\d+$/.test(text) && Number.isSafeInteger(Number(text)) && Number(text) >= 1,
    "must be a whole number of at least 1",
  )
  .transform(Number)
  .optional();

const defaults = defaultKnowledgeGraphOptions;

/**
 * The module's options from environment variables, declared with the module and read by the runtime with the
 * service's own (the module itself never reads the environment). The state secret defaults to a key kept in the
 * database.
 */
export const knowledgeGraphEnvironment = defineModuleEnvironment<Partial<KnowledgeGraphOptions>>({
  module: "knowledge-graph",
  variables: [
    {
      name: "KNOWLEDGE_GRAPH_IDLE_TIMEOUT_SECONDS",
      description: "seconds a session may stay idle before it expires",
      default: defaults.idleTimeoutMs / 1000,
      schema: atLeastOne,
    },
    {
      name: "KNOWLEDGE_GRAPH_MAX_SESSIONS",
      description: "active sessions at once",
      default: defaults.maxActiveSessions,
      schema: atLeastOne,
    },
    {
      name: "KNOWLEDGE_GRAPH_STATE_SECRET",
      description: "the key signing a session's state (default: a key kept in the database)",
      secret: true,
      schema: z.string().min(16, "must be at least 16 characters").optional(),
    },
    {
      name: "KNOWLEDGE_GRAPH_MAX_MODEL_CALLS",
      description: "model calls per task at most",
      default: defaults.maxModelCalls,
      schema: atLeastOne,
    },
    {
      name: "KNOWLEDGE_GRAPH_MAX_ITERATIONS",
      description: "reasoning iterations per task at most",
      default: defaults.maxIterations,
      schema: atLeastOne,
    },
    {
      name: "KNOWLEDGE_GRAPH_MAX_GRAPH_GROWTH",
      description: "new graph elements one model call may propose",
      default: defaults.maxGraphGrowth,
      schema: atLeastOne,
    },
    {
      name: "KNOWLEDGE_GRAPH_MAX_DERIVED_FACTS",
      description: "facts the rules may derive per session",
      default: defaults.maxDerivedFacts,
      schema: atLeastOne,
    },
  ],
  toOptions(values) {
    const number = (name: string) => values[name] as number | undefined;
    const options: Partial<KnowledgeGraphOptions> = {};
    const idle = number("KNOWLEDGE_GRAPH_IDLE_TIMEOUT_SECONDS");
    if (idle !== undefined) options.idleTimeoutMs = idle * 1000;
    const pairs = [
      ["KNOWLEDGE_GRAPH_MAX_SESSIONS", "maxActiveSessions"],
      ["KNOWLEDGE_GRAPH_MAX_MODEL_CALLS", "maxModelCalls"],
      ["KNOWLEDGE_GRAPH_MAX_ITERATIONS", "maxIterations"],
      ["KNOWLEDGE_GRAPH_MAX_GRAPH_GROWTH", "maxGraphGrowth"],
      ["KNOWLEDGE_GRAPH_MAX_DERIVED_FACTS", "maxDerivedFacts"],
    ] as const;
    for (const [variable, option] of pairs) {
      const value = number(variable);
      if (value !== undefined) options[option] = value;
    }
    const secret = values["KNOWLEDGE_GRAPH_STATE_SECRET"] as string | undefined;
    if (secret !== undefined) options.stateSecret = secret;
    return options;
  },
});

/** The module's options from `env` on their own (the runtime reads `knowledgeGraphEnvironment` instead); throws the first ConfigError. */
export function knowledgeGraphOptionsFromEnvironment(env: Environment): Partial<KnowledgeGraphOptions> {
  const { values, problems } = readEnvironmentVariables(env, knowledgeGraphEnvironment.variables);
  const [first] = problems;
  if (first !== undefined) throw new ConfigError(first.message, [...first.variables]);
  return knowledgeGraphEnvironment.toOptions(values);
}
