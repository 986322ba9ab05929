import { DeliberateError } from "@deliberate/base";

/**
 * Parses a JSON column (text on every dialect). A row that does not parse is a storage fault,
 * not the caller's: STORAGE naming where the bad value sits (`table.column` and the row's key).
 * The type is what the writer stored; the caller owns that claim.
 */
export function parseJsonColumn<T = unknown>(text: string, where: string): T {
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new DeliberateError({ code: "STORAGE", message: `Corrupt JSON in ${where}` });
  }
}

/** A JSON column that must hold an object; STORAGE naming `where` when it does not parse or is not one. */
export function parseJsonObject(text: string, where: string): Record<string, unknown> {
  const value = parseJsonColumn(text, where);
  if (value !== null && typeof value === "object" && !Array.isArray(value)) return value as Record<string, unknown>;
  throw new DeliberateError({ code: "STORAGE", message: `Corrupt JSON in ${where}: not an object` });
}
