import { Validator } from "@seriousme/openapi-schema-validator";

let shared: Validator | undefined;

/**
 * One OpenAPI validator for the test files of a run (they share a module cache): compiling the
 * OpenAPI meta-schema is most of a validation's cost. It validates one document at a time; the
 * files run one after another in a worker, and each reads its result before another validates.
 */
export function openApiValidator(): Validator {
  shared ??= new Validator();
  return shared;
}
