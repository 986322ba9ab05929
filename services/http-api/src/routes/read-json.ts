import { DeliberateError, parseInput } from "@deliberate/contracts";
import type { Context } from "hono";
import type { z } from "zod";
import type { AppEnv } from "../app-env.ts";

/**
 * The request body as JSON. An empty or malformed body is INVALID_INPUT with
 * the parser's position, so a caller sees what to fix.
 */
export async function readJsonBody(c: Context<AppEnv>): Promise<unknown> {
  const text = await c.req.text();
  if (text.trim() === "") {
    throw new DeliberateError({
      code: "INVALID_INPUT",
      message: "The request body is empty; send a JSON object.",
      issues: [{ field: "(body)", message: "empty" }],
      hint: "Send a JSON object with Content-Type: application/json.",
    });
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new DeliberateError({
      code: "INVALID_INPUT",
      message: `Malformed JSON body: ${reason}`,
      issues: [{ field: "(body)", message: `not valid JSON: ${reason}` }],
      hint: "Send a JSON object with Content-Type: application/json; check quotes and trailing commas.",
    });
  }
}

/** The body parsed as JSON and validated with `schema` (INVALID_INPUT naming each bad field). */
export async function readBody<S extends z.ZodType>(c: Context<AppEnv>, schema: S, what: string): Promise<z.output<S>> {
  return parseInput(schema, await readJsonBody(c), what);
}
