import { defineModule } from "@deliberate/engine";
import { decideHandler } from "./intent/decide-tool.ts";
import { type ApiRepositories, apiStore } from "./store/contribution.ts";

/**
 * The HTTP API's own module: the agent-intent decision as a tool, and the
 * tables of the durable intent queue, its request log and the shared rate-limit counters.
 */
export const agentIntentModule = defineModule<ApiRepositories>({
  name: "agent-intent",
  tools: [decideHandler],
  ...apiStore,
});
