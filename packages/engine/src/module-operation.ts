import type { ErrorCode } from "@deliberate/base";
import type { Store } from "@deliberate/store";
import type { z } from "zod";
import type { Clock } from "./clock.ts";
import type { IdGenerator } from "./ids.ts";

/** What an operation's handler may touch: the store (typed with the module's repositories), time, ids, the caller. */
export interface OperationContext<Extra extends object = object> {
  readonly store: Store<Extra>;
  readonly clock: Clock;
  readonly ids: IdGenerator;
  /** Who calls, as the surface authenticated it (null when it cannot tell callers apart). */
  readonly caller: string | null;
  /** Aborted when the caller goes away (when the surface has a signal). */
  readonly signal: AbortSignal | undefined;
}

/**
 * A named operation a module offers besides its tools (reads and changes of its own records, such as
 * self-improvement's status or rollback). Services mount every composed module's operations generically:
 * the HTTP API as `<method> /v1/<module name><path>` (documented in /openapi.json from these schemas), the
 * MCP server as the custom request `<module name>/<name>`. No invocation row is written: operations are
 * the operator's, not a model's (they are not tool calls).
 *
 * Where the input comes from over HTTP: `:param` segments of `path` are input fields (strings); the other
 * fields come from the query string (`get`) or the JSON body (`post`; when every body field is optional an
 * empty body counts as `{}`, and a `post` whose input is only path fields reads no body at all).
 *
 * Replicas: an operation runs on whichever replica receives it, against the shared database. One that must
 * run where the module's leader is checks that itself and answers CONFLICT naming the leader (there is no
 * flag for it: no operation needs it today; self-improvement's changes are conditional writes every replica
 * picks up within its sync interval).
 */
export interface ModuleOperation<
  Extra extends object = object,
  Input extends z.ZodObject = z.ZodObject,
  Output extends z.ZodType = z.ZodType,
> {
  /** Unique within the module, lowerCamelCase (e.g. `status`, `approveDiagnosis`). */
  readonly name: string;
  /** The OpenAPI operationId; default the module's and the operation's names in lowerCamelCase. Unique across modules. */
  readonly operationId?: string;
  /** `get` reads (changes nothing); `post` may change the module's records. */
  readonly method: "get" | "post";
  /** The path under the module's prefix (`/v1/<module name>`): `""` for the prefix itself, else starting with `/`. */
  readonly path: string;
  /** One line: what it does (OpenAPI summary, MCP method description). */
  readonly summary: string;
  readonly description?: string;
  /** The input, every field named: path parameters, then the query (`get`) or body (`post`) fields. Default: none. */
  readonly input?: Input;
  /** What it answers (checked before it leaves: an answer outside it is INTERNAL). A `.meta({ title })` names it in OpenAPI. */
  readonly output: Output;
  /** The failures it may answer with besides INVALID_INPUT (e.g. NOT_FOUND, CONFLICT): documented per surface. */
  readonly errors?: readonly ErrorCode[];
  /** Runs it on the validated input (a method, so a module's typed operations compose into the engine's list). */
  handler(input: z.output<Input>, context: OperationContext<Extra>): Promise<z.input<Output>>;
}

/** An operation as composed: with its module's name, its qualified name and its full HTTP path. */
export interface ComposedOperation extends ModuleOperation<object, z.ZodObject, z.ZodType> {
  readonly module: string;
  /** `<module>/<name>`: the MCP request method and the key of `engine.operations`. */
  readonly qualifiedName: string;
  readonly operationId: string;
  /** `/v1/<module><path>`, with `:param` segments. */
  readonly httpPath: string;
  /** The `:param` names of the path, in order. */
  readonly pathParameters: readonly string[];
}

/**
 * Typed operations for a module's repositories: `const defineOperation = operationDefinerFor<MyRepositories>();`
 * then `defineOperation({ name, method, path, input, output, handler })` infers the input and output types.
 */
export function operationDefinerFor<Extra extends object>() {
  return <Input extends z.ZodObject, Output extends z.ZodType>(
    operation: ModuleOperation<Extra, Input, Output>,
  ): ModuleOperation<Extra, Input, Output> => operation;
}

/** The `:param` names of a path, in order. */
export function pathParametersOf(path: string): string[] {
  return [...path.matchAll(/:([A-Za-z0-9_]+)/g)].map((match) => match[1] as string);
}

/** lowerCamelCase of kebab-, snake- or space-separated words (`self-improvement` + `status` -> `selfImprovementStatus`). */
function lowerCamelCase(...parts: readonly string[]): string {
  const words = parts.flatMap((part) => part.split(/[^A-Za-z0-9]+/)).filter((word) => word !== "");
  return words.map((word, index) => (index === 0 ? word : `${word.charAt(0).toUpperCase()}${word.slice(1)}`)).join("");
}

/** Checks a module's operation and gives it its composed form; throws naming the module and the operation. */
export function composeOperation(
  moduleName: string,
  operation: ModuleOperation<object, z.ZodObject, z.ZodType>,
): ComposedOperation {
  const fail = (message: string) => new Error(`Operation '${operation.name}' of module ${moduleName}: ${message}`);
  if (!/^[a-z][A-Za-z0-9]*$/.test(operation.name)) throw fail("names are lowerCamelCase (e.g. approveDiagnosis)");
  if (operation.method !== "get" && operation.method !== "post")
    throw fail(`method must be get or post (got ${String(operation.method)})`);
  if (operation.path !== "" && !/^(\/(:?[A-Za-z0-9_-]+))+$/.test(operation.path)) {
    throw fail(
      `path must be "" or start with "/" and hold only letters, digits, - and _ (":name" for a parameter); got "${operation.path}"`,
    );
  }
  if (!/^[a-z][a-z0-9-]*$/.test(moduleName))
    throw fail("the module's name must be lower-case kebab-case to serve as the HTTP prefix");
  const pathParameters = pathParametersOf(operation.path);
  const fields = operation.input?.shape ?? {};
  for (const parameter of pathParameters) {
    if (!(parameter in fields)) throw fail(`path parameter :${parameter} is not a field of its input`);
  }
  return {
    ...operation,
    module: moduleName,
    qualifiedName: `${moduleName}/${operation.name}`,
    operationId: operation.operationId ?? lowerCamelCase(moduleName, operation.name),
    httpPath: `/v1/${moduleName}${operation.path}`,
    pathParameters,
  };
}
