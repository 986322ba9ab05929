import {
  Client,
  type JSONRPCResponse,
  type JsonSchemaType,
  type JsonSchemaValidator,
  type jsonSchemaValidator,
} from "@modelcontextprotocol/client";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/client/validators/ajv";

/**
 * The SDK client's own JSON Schema validator (ajv, the default a `Client` builds for itself), with each
 * distinct schema compiled once per test worker instead of once per client: every client lists the same
 * ~40 tools, and compiling their output schemas again for each of the suite's clients was a large share
 * of its CPU. The checks are the same: the same ajv engine validates every tool result against the schema
 * the server published (a schema that differs in any way is a different key, compiled on its own).
 */
const engine = new AjvJsonSchemaValidator();
const compiled = new Map<string, JsonSchemaValidator<unknown>>();

export const sharedSchemaValidator: jsonSchemaValidator = {
  getValidator<T>(schema: JsonSchemaType): JsonSchemaValidator<T> {
    const key = JSON.stringify(schema);
    let validator = compiled.get(key);
    if (validator === undefined) {
      validator = engine.getValidator<unknown>(schema);
      compiled.set(key, validator);
    }
    return validator as JsonSchemaValidator<T>;
  },
};

/**
 * The SDK's client (2.4.0) hands a notification to its handler in a microtask but settles a response at
 * once, dropping that request's progress handler. When the last progress notifications and the result
 * arrive in one read (a loaded machine reads the pipe late), the result is handled first and those
 * notifications are dropped, though the server sent them first. Settling the response in a microtask too
 * keeps the order they came in. Everything else is the SDK's own client.
 */
class WireOrderClient extends Client {
  protected override _onresponse(response: JSONRPCResponse): void {
    queueMicrotask(() => super._onresponse(response));
  }
}

/** A real SDK client (as `new Client(info, options)`) that validates tool results with the shared validator. */
export function testClient(
  info: ConstructorParameters<typeof Client>[0],
  options?: ConstructorParameters<typeof Client>[1],
): Client {
  return new WireOrderClient(info, { jsonSchemaValidator: sharedSchemaValidator, ...options });
}
