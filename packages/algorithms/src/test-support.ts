import { DeliberateError } from "@deliberate/base";
import { expect } from "vitest";

/** Runs `run`, expects an INVALID_INPUT DeliberateError naming `field`, and returns it. */
export function expectInvalid(run: () => unknown, field: string): DeliberateError {
  let caught: unknown;
  try {
    run();
  } catch (error) {
    caught = error;
  }
  expect(DeliberateError.isInstance(caught)).toBe(true);
  const error = caught as DeliberateError;
  expect(error.code).toBe("INVALID_INPUT");
  expect(error.issues.map((issue) => issue.field)).toContain(field);
  return error;
}
