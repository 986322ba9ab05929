import { ConfigError } from "@deliberate/base";
import type { KnowledgeGraphOptions } from "./options.ts";

type Environment = Record<string, string | undefined>;

function positiveInteger(env: Environment, name: string): number | undefined {
  const raw = env[name]?.trim();
  if (raw === undefined || raw === "") return undefined;
  const value = /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isSafeInteger(value) || value < 1) throw new ConfigError(`${name} must be a whole number of at least 1 (got "${raw}").`, [name]);
  return value;
}

/**
 * The module's options from environment variables, for services to pass to
 * `createKnowledgeGraphModule` (the module itself never reads the environment):
 * KNOWLEDGE_GRAPH_IDLE_TIMEOUT_SECONDS (default 1800), KNOWLEDGE_GRAPH_MAX_SESSIONS
 * (default 100), KNOWLEDGE_GRAPH_STATE_SECRET (default: a key kept in the database),
 * KNOWLEDGE_GRAPH_MAX_MODEL_CALLS, KNOWLEDGE_GRAPH_MAX_ITERATIONS, KNOWLEDGE_GRAPH_MAX_GRAPH_GROWTH,
 * KNOWLEDGE_GRAPH_MAX_DERIVED_FACTS.
 */
export function knowledgeGraphOptionsFromEnvironment(env: Environment): Partial<KnowledgeGraphOptions> {
  const options: Partial<KnowledgeGraphOptions> = {};
  const idle = positiveInteger(env, "KNOWLEDGE_GRAPH_IDLE_TIMEOUT_SECONDS");
  if (idle !== undefined) options.idleTimeoutMs = idle * 1000;
  const sessions = positiveInteger(env, "KNOWLEDGE_GRAPH_MAX_SESSIONS");
  if (sessions !== undefined) options.maxActiveSessions = sessions;
  const modelCalls = positiveInteger(env, "KNOWLEDGE_GRAPH_MAX_MODEL_CALLS");
  if (modelCalls !== undefined) options.maxModelCalls = modelCalls;
  const iterations = positiveInteger(env, "KNOWLEDGE_GRAPH_MAX_ITERATIONS");
  if (iterations !== undefined) options.maxIterations = iterations;
  const growth = positiveInteger(env, "KNOWLEDGE_GRAPH_MAX_GRAPH_GROWTH");
  if (growth !== undefined) options.maxGraphGrowth = growth;
  const derived = positiveInteger(env, "KNOWLEDGE_GRAPH_MAX_DERIVED_FACTS");
  if (derived !== undefined) options.maxDerivedFacts = derived;
  const secret = env["KNOWLEDGE_GRAPH_STATE_SECRET"]?.trim();
  if (secret !== undefined && secret !== "") {
    if (secret.length < 16) throw new ConfigError("KNOWLEDGE_GRAPH_STATE_SECRET must be at least 16 characters.", ["KNOWLEDGE_GRAPH_STATE_SECRET"]);
    options.stateSecret = secret;
  }
  return options;
}
