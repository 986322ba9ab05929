/** Shortens text to `length` characters, marking the cut with an ellipsis. */
export function clip(text: string, length: number): string {
  return text.length <= length ? text : `${text.slice(0, length - 1)}…`;
}

/** A host-supplied value as text: strings as they are, anything else as indented JSON. */
export function textOf(value: unknown): string {
  if (typeof value === "string") return value;
  return JSON.stringify(value, null, 1) ?? String(value);
}
