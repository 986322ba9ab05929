import { handlerDefinerFor, type ToolContext } from "@deliberate/engine";
import type { ReasoningRepositories } from "./store/contribution.ts";

/** What a reasoning tool's handler sees: the engine's context with the reasoning repositories in `store`. */
export type ReasoningContext = ToolContext<ReasoningRepositories>;

/** Pairs a reasoning tool's definition with its handler. */
export const defineHandler = handlerDefinerFor<ReasoningRepositories>();
