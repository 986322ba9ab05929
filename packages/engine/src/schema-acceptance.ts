import type { FieldIssue } from "@deliberate/base";
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import { generate } from "json-schema-faker";
import type { z } from "zod";
import { answerJsonSchema } from "./host/answer-json-schema.ts";

/** One generated answer the validator rejected, with its problems. */
export interface RejectedSample {
  answer: unknown;
  issues: FieldIssue[];
}

/** How a mode's validator treats answers that are valid against the schema it publishes. */
export interface SchemaAcceptance {
  /** Answers generated from the published JSON Schema and confirmed valid against it (by Ajv, draft 2020-12). */
  generated: number;
  accepted: number;
  rejected: RejectedSample[];
  /** accepted / generated. */
  rate: number;
}

/**
 * Measures how strict a mode's published answer schema is compared with its
 * validator: generates `samples` random answers from the JSON Schema the model
 * (or the calling agent) is given (json-schema-faker, seeded), confirms each
 * is valid against that schema (Ajv), and counts how many the zod validator
 * accepts. A schema as strict as its validator accepts all of them; the
 * rejected ones show the rules the schema does not state.
 */
export async function measureSchemaAcceptance(
  schema: z.ZodType,
  options: { samples?: number; seed?: number } = {},
): Promise<SchemaAcceptance> {
  const published = answerJsonSchema(schema);
  const isValid = compiled(published);
  const samples = options.samples ?? 200;
  const seed = options.seed ?? 1;
  const rejected: RejectedSample[] = [];
  let generated = 0;
  for (let index = 0; index < samples; index += 1) {
    const answer = await fakeAnswer(published, isValid, seed * 100_003 + index);
    generated += 1;
    const result = schema.safeParse(answer);
    if (!result.success)
      rejected.push({
        answer,
        issues: result.error.issues.map((issue) => ({
          field: issue.path.map(String).join(".") || "(answer)",
          message: issue.message,
        })),
      });
  }
  const accepted = generated - rejected.length;
  return { generated, accepted, rejected, rate: generated === 0 ? 0 : accepted / generated };
}

/**
 * One random answer valid against a published JSON Schema (json-schema-faker,
 * seeded, honouring `pattern`; confirmed by Ajv): what a model constrained to
 * the schema, and told nothing else, might send.
 */
export async function randomSchemaAnswer(jsonSchema: Record<string, unknown>, seed: number): Promise<unknown> {
  return fakeAnswer(jsonSchema, compiled(jsonSchema), seed);
}

const ajv = new Ajv2020({ strict: false, allErrors: true });
const validators = new WeakMap<Record<string, unknown>, ValidateFunction>();

function compiled(jsonSchema: Record<string, unknown>): ValidateFunction {
  let validate = validators.get(jsonSchema);
  if (validate === undefined) {
    validate = ajv.compile(jsonSchema);
    validators.set(jsonSchema, validate);
  }
  return validate;
}

async function fakeAnswer(
  jsonSchema: Record<string, unknown>,
  isValid: ValidateFunction,
  seed: number,
): Promise<unknown> {
  const answer = await generate(jsonSchema as never, { seed, maxItems: 6, optionalsProbability: 0.5 });
  if (!isValid(answer)) {
    throw new Error(
      `json-schema-faker produced an answer that is not valid against the schema: ${ajv.errorsText(isValid.errors)}\n${JSON.stringify(answer)}`,
    );
  }
  return answer;
}

/** Why `value` is not valid against a JSON Schema (Ajv, draft 2020-12), or undefined when it is. */
export function schemaViolations(jsonSchema: Record<string, unknown>, value: unknown): string | undefined {
  const validate = compiled(jsonSchema);
  return validate(value) ? undefined : ajv.errorsText(validate.errors);
}
