import { DeliberateError } from "@deliberate/base";
import { parseInput } from "@deliberate/contracts";
import { z } from "zod";
import type { ComposedOperation } from "../module-operation.ts";
import type { EngineCore } from "./core.ts";

/** Per-call options of `engine.runOperation`. */
export interface RunOperationOptions {
  /** Who calls, as the surface authenticated it. */
  caller?: string;
  signal?: AbortSignal;
  /** How the input is named in an INVALID_INPUT message (`body`, `query`; default the operation's qualified name). */
  inputName?: string;
}

const noInput = z.object({});

/**
 * Runs a module's operation: validates the raw input (INVALID_INPUT naming each field, nothing run), runs the
 * handler with the engine's store, clock and ids, and checks the answer against the output schema. The answer
 * is returned as the handler gave it (the check only refuses, it never reshapes).
 */
export async function runOperation(
  core: EngineCore,
  qualifiedName: string,
  rawInput: unknown,
  options: RunOperationOptions = {},
): Promise<unknown> {
  const operation = core.composition.operations.get(qualifiedName);
  if (!operation) throw unknownOperation(qualifiedName, core.composition.operations);
  const input = parseInput(operation.input ?? noInput, rawInput ?? {}, options.inputName ?? qualifiedName);
  const output = await operation.handler(input, {
    store: core.store,
    clock: core.clock,
    ids: core.ids,
    caller: options.caller ?? null,
    signal: options.signal,
  });
  const checked = operation.output.safeParse(output);
  if (!checked.success) {
    throw new DeliberateError({
      code: "INTERNAL",
      message: `${qualifiedName} produced output that does not match its schema: ${checked.error.message}`,
    });
  }
  return output;
}

function unknownOperation(name: string, operations: ReadonlyMap<string, ComposedOperation>): DeliberateError {
  return new DeliberateError({
    code: "NOT_FOUND",
    message: `Unknown operation: ${name}`,
    issues: [{ field: "operation", message: `no operation named '${name}'` }],
    hint:
      operations.size > 0
        ? `Available operations: ${[...operations.keys()].join(", ")}`
        : "The composed modules offer no operations.",
  });
}
