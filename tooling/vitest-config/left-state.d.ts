/** What a test file could leave changed: the environment, the working folder, the exit code, the watched globals. */
export interface LeftState {
  env: Record<string, string | undefined>;
  cwd: string;
  exitCode: number | string | undefined;
  globals: unknown[];
}
/** What a test file could leave changed, as it is now. */
export declare function snapshotLeftState(): LeftState;
/** Each change from `before` to `after`, one phrase each (environment variables by name only). */
export declare function describeChanges(before: LeftState, after: LeftState): string[];
/** Puts everything back as `before` had it. */
export declare function restoreLeftState(before: LeftState): void;
