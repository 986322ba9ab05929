/** The annotations of a test's probe tool: a read-only, idempotent, closed-world call (tests only). */
export function probeAnnotations(title: string) {
  return {
    title,
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  } as const;
}
