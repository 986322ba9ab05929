/**
 * A configuration problem found at start (an environment variable or flag
 * with a bad value): the message says what is wrong and how to fix it, and
 * `variables` names the settings at fault. Services print it and exit 2.
 */
export class ConfigError extends Error {
  /** The environment variables / flags at fault. */
  readonly variables: string[];

  constructor(message: string, variables: string[]) {
    super(message);
    this.name = "ConfigError";
    this.variables = variables;
  }
}

/** A comma-separated setting as a list: items trimmed, empty ones dropped; unset is empty. */
export function readList(value: string | undefined): string[] {
  return (value ?? "")
    .split(",")
    .map((item) => item.trim())
    .filter((item) => item !== "");
}
