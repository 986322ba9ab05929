import { ConfigError, DeliberateError } from "@deliberate/base";

/** A process environment (or any record read like one). */
export type Environment = Readonly<Record<string, string | undefined>>;

/** One bad setting: what is wrong and how to fix it, and the variables or flags at fault. */
export interface ConfigProblem {
  readonly message: string;
  readonly variables: readonly string[];
}

/**
 * Reads settings from an environment, collecting every problem instead of stopping at the first, so a
 * start with three bad variables names all three in one `ConfigError` (`finish`).
 */
export interface EnvReader {
  readonly env: Environment;
  /** The trimmed value; empty or blank counts as unset. */
  text(name: string): string | undefined;
  /** A whole number within `range`; the fallback when unset, or (with a problem noted) when invalid. */
  integer(name: string, fallback: number, range: { min: number; max?: number; unit?: string }): number;
  /** 1/true/yes/on or 0/false/no/off; the fallback when unset or (with a problem noted) invalid. */
  flag(name: string, fallback: boolean): boolean;
  /** One of `allowed` (lower-cased); undefined when unset or (with a problem noted) invalid. */
  choice<T extends string>(name: string, allowed: readonly T[]): T | undefined;
  /** Notes a problem. */
  problem(message: string, variables: readonly string[]): void;
  /**
   * Runs a parser that throws on its first problem (a module's or a package's own); a `ConfigError`, or a
   * `DeliberateError` with field issues, is noted and `fallback` returned. Anything else is rethrown.
   */
  attempt<T>(parse: () => T, fallback: T): T;
  /** The problems so far. */
  readonly problems: readonly ConfigProblem[];
  /** Throws one `ConfigError` naming every problem noted; returns when there is none. */
  finish(): void;
}

/** Creates a collecting reader over `env`. */
export function createEnvReader(env: Environment): EnvReader {
  const problems: ConfigProblem[] = [];
  const problem = (message: string, variables: readonly string[]) => void problems.push({ message, variables });
  const text = (name: string): string | undefined => {
    const value = env[name]?.trim();
    return value === undefined || value === "" ? undefined : value;
  };
  return {
    env,
    problems,
    text,
    problem,
    integer(name, fallback, range) {
      const value = text(name);
      if (value === undefined) return fallback;
      const parsed = /^\d+$/.test(value) ? Number(value) : Number.NaN;
      if (Number.isSafeInteger(parsed) && parsed >= range.min && (range.max === undefined || parsed <= range.max))
        return parsed;
      const bounds = range.max === undefined ? `>= ${range.min}` : `from ${range.min} to ${range.max}`;
      const what = range.unit === undefined ? "a whole number" : `a whole number of ${range.unit}`;
      problem(`${name} must be ${what} ${bounds} (got "${value}")`, [name]);
      return fallback;
    },
    flag(name, fallback) {
      const value = text(name)?.toLowerCase();
      if (value === undefined) return fallback;
      if (["1", "true", "yes", "on"].includes(value)) return true;
      if (["0", "false", "no", "off"].includes(value)) return false;
      problem(`${name} must be 1 or 0 (got "${value}")`, [name]);
      return fallback;
    },
    choice<T extends string>(name: string, allowed: readonly T[]): T | undefined {
      const value = text(name)?.toLowerCase();
      if (value === undefined) return undefined;
      if ((allowed as readonly string[]).includes(value)) return value as T;
      problem(`${name} must be one of ${allowed.join(", ")} (got "${env[name]}")`, [name]);
      return undefined;
    },
    attempt(parse, fallback) {
      try {
        return parse();
      } catch (error) {
        const found = configProblemsOf(error);
        if (found === undefined) throw error;
        problems.push(...found);
        return fallback;
      }
    },
    finish() {
      if (problems.length > 0) throw combineConfigProblems(problems);
    },
  };
}

/** The problems a parser's error stands for, or undefined when it is not a configuration error. */
function configProblemsOf(error: unknown): ConfigProblem[] | undefined {
  if (error instanceof ConfigError) return [{ message: error.message, variables: error.variables }];
  if (!DeliberateError.isInstance(error)) return undefined;
  if (error.issues.length === 0) return [{ message: error.message, variables: ["provider configuration"] }];
  return error.issues.map((issue) => ({ message: `${issue.field} ${issue.message}`, variables: [issue.field] }));
}

/**
 * One `ConfigError` for every problem: a single problem keeps its own message; several are listed as
 * `Invalid configuration: <first>; <second>; ....` and every variable at fault is named once.
 */
export function combineConfigProblems(problems: readonly ConfigProblem[]): ConfigError {
  const variables = [...new Set(problems.flatMap((problem) => problem.variables))];
  const messages = problems.map((problem) => problem.message.replace(/\.$/, ""));
  return new ConfigError(`Invalid configuration: ${messages.join("; ")}.`, variables);
}
