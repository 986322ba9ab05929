import type { z } from "zod";

/** One environment variable a module reads: its name, what it sets, its default, and how its text is parsed. */
export interface EnvironmentVariable {
  readonly name: string;
  /** What it sets, for the README, `--help` and the configuration report. */
  readonly description: string;
  /** The value in force when unset, as parsed (absent: the module decides, e.g. from another setting). */
  readonly default?: string | number | boolean;
  /**
   * Parses the trimmed text (empty counts as unset, and reaches the schema as `undefined`). A failed parse is
   * reported as `<NAME> <the issue's message> (got "<text>")`, so messages say what is expected.
   */
  readonly schema: z.ZodType<unknown, string | undefined>;
  /** A secret: never shown in the configuration report. */
  readonly secret?: boolean;
}

/**
 * How a module is configured from the environment: the variables it reads and how their values become the
 * module's options. The runtime reads every variable of every default module with the service's own, so a
 * start with bad variables names them all in one `ConfigError`, and both services report the values the same
 * way (`reasoning_metrics {query: "config"}` under `modules`).
 */
export interface ModuleEnvironment<Options> {
  /** The module these options are for (the key of its values in the configuration report). */
  readonly module: string;
  readonly variables: readonly EnvironmentVariable[];
  /**
   * The module's options from the parsed values (by variable name; unset ones absent). May throw a
   * `ConfigError` for a combination the variables cannot express alone (named by variable).
   */
  toOptions(values: Readonly<Record<string, unknown>>): Options;
}

/** Declares a module's environment (typed options). */
export function defineModuleEnvironment<Options>(environment: ModuleEnvironment<Options>): ModuleEnvironment<Options> {
  return environment;
}

/** One bad variable of a module's environment. */
export interface EnvironmentProblem {
  readonly message: string;
  readonly variables: readonly string[];
}

/** What reading a module's environment gave: the parsed values (unset ones absent) and every problem. */
export interface EnvironmentReading {
  readonly values: Readonly<Record<string, unknown>>;
  readonly problems: readonly EnvironmentProblem[];
}

/**
 * Parses each declared variable of `env` (trimmed; empty is unset), collecting every problem rather than stopping
 * at the first. `toOptions` is the caller's next step, once the values are known to be valid.
 */
export function readEnvironmentVariables(
  env: Readonly<Record<string, string | undefined>>,
  variables: readonly EnvironmentVariable[],
): EnvironmentReading {
  const values: Record<string, unknown> = {};
  const problems: EnvironmentProblem[] = [];
  for (const variable of variables) {
    const raw = env[variable.name]?.trim();
    const text = raw === undefined || raw === "" ? undefined : raw;
    const parsed = variable.schema.safeParse(text);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]?.message ?? "is not valid";
      problems.push({ message: `${variable.name} ${issue} (got "${text ?? ""}")`, variables: [variable.name] });
    } else if (parsed.data !== undefined) {
      values[variable.name] = parsed.data;
    }
  }
  return { values, problems };
}

/** The values as the configuration report shows them: every declared variable, its value or default, secrets hidden. */
export function reportEnvironment(
  variables: readonly EnvironmentVariable[],
  values: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  return Object.fromEntries(
    variables.map((variable) => {
      const value = values[variable.name];
      if (variable.secret) return [variable.name, value === undefined ? null : "(set)"];
      return [variable.name, value === undefined ? (variable.default ?? null) : value];
    }),
  );
}
