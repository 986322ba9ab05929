import type { TaskResult } from "./run-tasks.ts";

/** Seconds with one decimal, minutes past 60 s: `42.0s`, `1m52.3s`. */
export function formatDuration(ms: number): string {
  const seconds = ms / 1000;
  if (seconds < 60) return `${seconds.toFixed(1)}s`;
  const minutes = Math.floor(seconds / 60);
  return `${minutes}m${(seconds - minutes * 60).toFixed(1).padStart(4, "0")}s`;
}

/**
 * The end-of-run report: each task's outcome, wall time (longest first) and CPU time (user + system, itself and
 * what it started: on a 2-core machine the sum, not the longest task, bounds the run), the counts, the wall time
 * and the CPU total.
 */
export function summarize(results: readonly TaskResult[], wallMs: number): string {
  const width = Math.max(0, ...results.map((result) => result.id.length));
  const cpu = (result: TaskResult) =>
    result.cpuMs === undefined ? "" : `  cpu ${formatDuration(result.cpuMs).padStart(8)}`;
  const lines = [...results]
    .sort((a, b) => b.durationMs - a.durationMs)
    .map(
      (result) =>
        `  ${result.id.padEnd(width)}  ${result.status.padEnd(7)} ${formatDuration(result.durationMs).padStart(8)}${cpu(result)}${result.reason ? `  (${result.reason})` : ""}`,
    );
  const count = (status: TaskResult["status"]) => results.filter((result) => result.status === status).length;
  const counts = [
    `${count("passed")} passed`,
    count("failed") > 0 ? `${count("failed")} failed` : "",
    count("skipped") > 0 ? `${count("skipped")} skipped` : "",
  ].filter(Boolean);
  const cpuTotal = results.reduce((sum, result) => sum + (result.cpuMs ?? 0), 0);
  return [
    "",
    ...lines,
    "",
    ` Tasks: ${counts.join(", ")}, ${results.length} total`,
    ` Time:  ${formatDuration(wallMs)}`,
    ` CPU:   ${formatDuration(cpuTotal)}`,
    "",
  ].join("\n");
}
