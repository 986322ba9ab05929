/** JSON columns are text on every dialect; parse defensively so one bad row names itself. */
export function parseJsonObject(text: string, where: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    if (value !== null && typeof value === "object" && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // fall through to the error below
  }
  throw new Error(`Corrupt JSON in ${where}`);
}
