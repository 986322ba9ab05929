import { DeliberateError } from "@deliberate/base";
import type { SelfImprovementControl } from "../control.ts";
import { describeMetric, metricValue } from "../metrics.ts";
import type { Baseline } from "../monitor.ts";
import {
  type ActionStatus,
  actionStatuses,
  type DiagnosisRecord,
  type DiagnosisStatus,
  diagnosisStatuses,
} from "../records.ts";
import { metricNames, targetLabel } from "../types.ts";
import { formatDuration, renderPairs, renderTable } from "./text-table.ts";

/** What a command printed and how it ended (0 ok, 1 failed, 2 usage). */
export interface CommandOutput {
  exitCode: number;
  stdout: string;
  stderr: string;
}

export const selfImproveUsage = `Usage: deliberate self-improve <command> [arguments] [--json] [--database <path>]

Commands:
  status                        mode, leader, pause, breaker, last cycle, overrides in force
  history [--limit N] [--outcome evaluating|kept|rolled_back|reverted|inconclusive]
                                actions applied, newest first, with their measured reward
  diagnostics [--limit N] [--status pending|applied|refused|rejected|no_action|expired] [--verbose]
                                diagnoses, newest first
  config                        this shell's configuration and allowlist (status shows the service's mode)
  circuit-breaker [reset]       the breaker's state (reset closes it)
  baselines                     per tool and mode: the current window against the baseline, and the triggers
  pause <duration>              pause the loop (90s, 30m, 2h, 1d); pause 0 resumes
  rollback <action> [reason]    undo an action
  approve <diagnosis>           apply a pending diagnosis's action (advisory mode)
  reject <diagnosis> [reason]   reject a pending diagnosis (recorded as a lesson)

The database is the one the service writes, found as the services find it: DATABASE_URL
(postgres://...) if set, else DATABASE_PATH (default deliberate/deliberate.db
in the user data directory, as for the services); --database <path or
postgres:// URL> overrides both. status shows the mode, analyzer and cycle the running service
recorded there ("settings from"); commands that act (approve, rollback, ...) use the
DELIBERATE_SELF_IMPROVEMENT_* variables of this shell for their checks, as the services do.`;

class UsageError extends Error {}

interface ParsedArguments {
  positional: string[];
  json: boolean;
  verbose: boolean;
  limit: number | undefined;
  status: string | undefined;
  /** `--help` or `-h` anywhere: print the usage and exit 0. */
  help: boolean;
}

function parseArguments(argv: readonly string[]): ParsedArguments {
  const parsed: ParsedArguments = {
    positional: [],
    json: false,
    verbose: false,
    limit: undefined,
    status: undefined,
    help: false,
  };
  for (let index = 0; index < argv.length; index += 1) {
    const argument = argv[index] as string;
    const value = () => {
      const next = argv[index + 1];
      if (next === undefined || next.startsWith("--")) throw new UsageError(`${argument} needs a value`);
      index += 1;
      return next;
    };
    if (argument === "--help" || argument === "-h") parsed.help = true;
    else if (argument === "--json") parsed.json = true;
    else if (argument === "--verbose" || argument === "-v") parsed.verbose = true;
    else if (argument === "--limit") {
      const text = value();
      const limit = Number(text);
      if (!Number.isInteger(limit) || limit < 1 || limit > 1000)
        throw new UsageError(`--limit must be a whole number from 1 to 1000, got '${text}'`);
      parsed.limit = limit;
    } else if (argument === "--outcome" || argument === "--status") parsed.status = value();
    else if (argument.startsWith("--")) throw new UsageError(`unknown option ${argument}`);
    else parsed.positional.push(argument);
  }
  return parsed;
}

const at = (iso: string | null) => (iso === null ? "-" : iso.replace("T", " ").replace(/\.\d+Z$/, "Z"));
const fixed = (value: number | null, digits = 2) => (value === null ? "-" : value.toFixed(digits));

function suggestion(diagnosis: DiagnosisRecord): string {
  const { action } = diagnosis;
  return action.kind === "adjust"
    ? `${targetLabel(action.scope, action.setting)} ${action.from} -> ${action.to}`
    : "no action";
}

function baselineRows(baselines: readonly Baseline[]): string[][] {
  return baselines.map((baseline) => [
    baseline.kind,
    baseline.name,
    baseline.status === "ready" ? "ready" : "too few calls",
    String(baseline.window.samples),
    String(baseline.rolling.samples),
    ...metricNames.map(
      (metric) =>
        `${describeMetric(metric, metricValue(baseline.window, metric))} / ${describeMetric(metric, baseline.ema[metric])}`,
    ),
  ]);
}

/** `status`: where the loop stands, with the overrides in force. */
async function showStatus(control: SelfImprovementControl): Promise<{ json: unknown; text: string }> {
  const status = await control.status();
  const breaker = status.circuit_breaker;
  const from = status.settings_from;
  const pairs: Array<[string, string]> = [
    [
      "settings from",
      from.source === "service"
        ? `the service ${from.holder} (recorded ${at(from.recorded_at)})`
        : "this shell's environment (no service has recorded its settings in this database)",
    ],
    ["mode", status.mode],
    ["analyzer", status.analyzer],
    ["cycle", formatDuration(status.cycle_ms)],
    ["paused until", status.paused_until === null ? "not paused" : at(status.paused_until)],
    [
      "leader",
      status.leader === null
        ? "none"
        : `${status.leader.holder} (until ${at(status.leader.expires_at)}${status.leader.live ? "" : ", expired"})`,
    ],
    [
      "circuit breaker",
      `${breaker.state}${breaker.state === "open" ? ` (${formatDuration(breaker.remaining_ms)} left)` : ""}, ${breaker.consecutive_failures} consecutive failure(s)`,
    ],
    [
      "last cycle",
      status.last_cycle === null
        ? "none yet"
        : `${at(status.last_cycle.started_at)} ${status.last_cycle.outcome}: ${status.last_cycle.reason}`,
    ],
    ["pending diagnoses", String(status.pending_diagnoses)],
    ["actions being measured", String(status.actions_evaluating)],
    ["actions in the last hour", `${status.actions_last_hour} of ${status.max_actions_per_hour}`],
    ["next action", status.execution_block ?? "allowed"],
  ];
  const overrides =
    status.overrides.length === 0
      ? "Overrides in force: none (every setting as configured)."
      : `Overrides in force:\n${renderTable(
          ["TARGET", "VALUE", "ACTION", "SINCE"],
          status.overrides.map((override) => [
            override.target,
            String(override.value),
            override.action_id ?? "-",
            at(override.updated_at),
          ]),
        )}`;
  return { json: status, text: `${renderPairs(pairs)}\n\n${overrides}` };
}

/** `diagnostics`: recent diagnoses (`--status`, `--limit`), with their reasoning under `--verbose`. */
async function showDiagnostics(
  control: SelfImprovementControl,
  parsed: ParsedArguments,
): Promise<{ json: unknown; text: string }> {
  if (parsed.status !== undefined && !(diagnosisStatuses as readonly string[]).includes(parsed.status)) {
    throw new UsageError(`--status must be one of ${diagnosisStatuses.join(", ")}, got '${parsed.status}'`);
  }
  const diagnoses = await control.diagnostics({
    ...(parsed.limit ? { limit: parsed.limit } : {}),
    ...(parsed.status ? { status: parsed.status as DiagnosisStatus } : {}),
  });
  if (diagnoses.length === 0) return { json: diagnoses, text: "No diagnoses yet." };
  const table = renderTable(
    ["DIAGNOSIS", "CREATED", "TOOL", "TRIGGER", "SEVERITY", "ANALYZER", "SUGGESTION", "STATUS"],
    diagnoses.map((diagnosis) => [
      diagnosis.id,
      at(diagnosis.created_at),
      diagnosis.tool,
      `${diagnosis.metric} ${describeMetric(diagnosis.metric, diagnosis.trigger.observed)} vs ${describeMetric(diagnosis.metric, diagnosis.trigger.baseline)}`,
      diagnosis.severity,
      diagnosis.analyzer,
      suggestion(diagnosis),
      diagnosis.status,
    ]),
  );
  const details = parsed.verbose
    ? diagnoses.map((diagnosis) =>
        [
          `${diagnosis.id} (${diagnosis.analyzer}${diagnosis.rule ? `, rule ${diagnosis.rule}` : ""})`,
          `  ${diagnosis.description}`,
          `  cause: ${diagnosis.suspected_cause ?? "-"}`,
          `  rationale: ${diagnosis.rationale ?? "-"}`,
          `  status: ${diagnosis.status}${diagnosis.status_reason ? ` (${diagnosis.status_reason})` : ""}`,
        ].join("\n"),
      )
    : [];
  return { json: diagnoses, text: [table, ...(details.length > 0 ? ["", ...details] : [])].join("\n") };
}

/** `config`: the effective configuration and the allowlist of adjustable settings. */
async function showConfig(control: SelfImprovementControl): Promise<{ json: unknown; text: string }> {
  const config = control.config();
  const pairs: Array<[string, string]> = [
    ["mode", config.mode],
    ["cycle", formatDuration(config.cycleMs)],
    ["sync", formatDuration(config.syncMs)],
    ["default timeout", `${config.defaultTimeoutMs} ms`],
    [
      "monitor",
      `EMA α ${config.monitor.alpha}, window ${config.monitor.windowSize} calls within ${formatDuration(config.monitor.windowMs)}, min ${config.monitor.minSamples} samples, lookback ${formatDuration(config.monitor.lookbackMs)}`,
    ],
    [
      "floors",
      `error rate ${config.monitor.floors.errorRate}, p95 ${config.monitor.floors.latencyMs} ms, quality ${config.monitor.floors.quality}, repair rate ${config.monitor.floors.repairRate}`,
    ],
    [
      "analyzer",
      `${config.analyzer.use}, acts from ${config.analyzer.minSeverity}, at most ${config.analyzer.maxPending} pending, lessons for ${formatDuration(config.analyzer.lessonTtlMs)}`,
    ],
    [
      "executor",
      `cooldown ${formatDuration(config.executor.cooldownMs)}, at most ${config.executor.maxActionsPerHour} actions an hour`,
    ],
    [
      "learner",
      `${config.learner.minSamples}..${config.learner.maxSamples} calls each side, waits up to ${formatDuration(config.learner.maxWaitMs)}, reward threshold ${config.learner.rewardThreshold}`,
    ],
    [
      "circuit breaker",
      `opens after ${config.circuitBreaker.failureThreshold} failures, for ${formatDuration(config.circuitBreaker.resetTimeoutMs)}, closes after ${config.circuitBreaker.successThreshold} successes`,
    ],
    ["leader lease", `${config.lease.name}, ${formatDuration(config.lease.durationMs)}`],
  ];
  const allowlist = renderTable(
    ["SETTING", "MIN", "MAX", "STEP", "MAX STEPS"],
    Object.entries(config.executor.allowlist).map(([setting, entry]) => [
      setting,
      String(entry.min),
      String(entry.max),
      String(entry.step),
      String(entry.maxSteps),
    ]),
  );
  return { json: config, text: `${renderPairs(pairs)}\n\nAllowlist:\n${allowlist}` };
}

/** `baselines`: each tool's and mode's metrics now against its baseline, and the triggers they raise. */
async function showBaselines(control: SelfImprovementControl): Promise<{ json: unknown; text: string }> {
  const report = await control.baselines();
  const headers = [
    "KIND",
    "NAME",
    "STATUS",
    "WINDOW",
    "BASELINE",
    ...metricNames.map((metric) => `${metric.toUpperCase()} NOW / BASE`),
  ];
  const rows = baselineRows([...report.tools, ...report.modes]);
  const table = rows.length === 0 ? "No invocations within the lookback." : renderTable(headers, rows);
  const triggers =
    report.triggers.length === 0
      ? "Triggers: none."
      : `Triggers:\n${renderTable(
          ["TOOL", "METRIC", "OBSERVED", "BASELINE", "DEVIATION", "SEVERITY"],
          report.triggers.map((trigger) => [
            trigger.tool,
            trigger.metric,
            describeMetric(trigger.metric, trigger.observed),
            describeMetric(trigger.metric, trigger.baseline),
            `${trigger.deviation_pct.toFixed(0)}%`,
            trigger.severity,
          ]),
        )}`;
  return { json: report, text: `${table}\n\n${triggers}` };
}

async function execute(
  control: SelfImprovementControl,
  command: string,
  parsed: ParsedArguments,
): Promise<{ json: unknown; text: string }> {
  const [, first, ...rest] = parsed.positional;
  const argumentOf = (name: string) => {
    if (first === undefined) throw new UsageError(`${command} needs <${name}>`);
    return first;
  };
  switch (command) {
    case "status":
      return showStatus(control);
    case "history": {
      if (parsed.status !== undefined && !(actionStatuses as readonly string[]).includes(parsed.status)) {
        throw new UsageError(`--outcome must be one of ${actionStatuses.join(", ")}, got '${parsed.status}'`);
      }
      const entries = await control.history({
        ...(parsed.limit ? { limit: parsed.limit } : {}),
        ...(parsed.status ? { status: parsed.status as ActionStatus } : {}),
      });
      const table =
        entries.length === 0
          ? "No actions yet."
          : renderTable(
              ["ACTION", "APPLIED", "TARGET", "CHANGE", "BY", "STATUS", "REWARD", "CONFIDENCE"],
              entries.map((entry) => [
                entry.id,
                at(entry.applied_at),
                entry.target,
                `${entry.from_value} -> ${entry.to_value}`,
                entry.applied_by,
                entry.status,
                fixed(entry.reward),
                fixed(entry.confidence),
              ]),
            );
      const lessons = parsed.verbose
        ? entries.filter((entry) => entry.lesson).map((entry) => `${entry.id}: ${entry.lesson}`)
        : [];
      return { json: entries, text: [table, ...(lessons.length > 0 ? ["", ...lessons] : [])].join("\n") };
    }
    case "diagnostics":
      return showDiagnostics(control, parsed);
    case "config":
      return showConfig(control);
    case "circuit-breaker": {
      if (first !== undefined && first !== "reset")
        throw new UsageError(`circuit-breaker takes no argument but 'reset', got '${first}'`);
      const report = first === "reset" ? await control.resetCircuitBreaker() : await control.circuitBreaker();
      const pairs: Array<[string, string]> = [
        ["state", report.state],
        ["consecutive failures", `${report.consecutive_failures} (opens at ${report.failure_threshold})`],
        ["opened at", at(report.opened_at)],
        [
          "reopens at",
          report.reopens_at === null ? "-" : `${at(report.reopens_at)} (${formatDuration(report.remaining_ms)} left)`,
        ],
        ["half-open successes", `${report.half_open_successes} (closes at ${report.success_threshold})`],
        ["last failure", report.last_failure === null ? "-" : `${at(report.last_failure_at)} ${report.last_failure}`],
      ];
      return { json: report, text: renderPairs(pairs) };
    }
    case "baselines":
      return showBaselines(control);
    case "pause": {
      const result = await control.pause(argumentOf("duration"));
      return {
        json: result,
        text:
          result.paused_until === null
            ? "Resumed: the loop runs at its next cycle."
            : `Paused until ${at(result.paused_until)}.`,
      };
    }
    case "rollback": {
      const action = await control.rollback(argumentOf("action"), rest.join(" "));
      return {
        json: action,
        text: `Rolled back ${action.id}: ${targetLabel(action.scope, action.setting)} ${action.to_value} -> ${action.previous_override ?? `${action.from_value} (configured; override removed)`}.`,
      };
    }
    case "approve": {
      const action = await control.approve(argumentOf("diagnosis"));
      return {
        json: action,
        text: `Applied ${action.id}: ${targetLabel(action.scope, action.setting)} ${action.from_value} -> ${action.to_value}; measured after ${action.tools.join(", ")} have enough calls.`,
      };
    }
    case "reject": {
      const diagnosis = await control.reject(argumentOf("diagnosis"), rest.join(" "));
      return { json: diagnosis, text: `Rejected ${diagnosis.id}: ${diagnosis.status_reason}.` };
    }
    default:
      throw new UsageError(`unknown command '${command}'`);
  }
}

/**
 * `deliberate self-improve <command>` against a control: returns what to
 * print (a readable table, or JSON with --json) and the exit code. A
 * DeliberateError prints its message and hint (exit 1); a usage mistake
 * prints the usage (exit 2).
 */
export async function runSelfImproveCommand(
  argv: readonly string[],
  control: SelfImprovementControl,
): Promise<CommandOutput> {
  let parsed: ParsedArguments;
  try {
    parsed = parseArguments(argv);
  } catch (error) {
    return {
      exitCode: 2,
      stdout: "",
      stderr: `deliberate self-improve: ${(error as Error).message}\n\n${selfImproveUsage}\n`,
    };
  }
  const command = parsed.positional[0];
  if (parsed.help) return { exitCode: 0, stdout: `${selfImproveUsage}\n`, stderr: "" };
  if (command === undefined || command === "help")
    return {
      exitCode: command === undefined ? 2 : 0,
      stdout: command === undefined ? "" : `${selfImproveUsage}\n`,
      stderr: command === undefined ? `${selfImproveUsage}\n` : "",
    };
  try {
    const { json, text } = await execute(control, command, parsed);
    return { exitCode: 0, stdout: parsed.json ? `${JSON.stringify(json, null, 2)}\n` : `${text}\n`, stderr: "" };
  } catch (error) {
    if (error instanceof UsageError)
      return { exitCode: 2, stdout: "", stderr: `deliberate self-improve: ${error.message}\n\n${selfImproveUsage}\n` };
    if (DeliberateError.isInstance(error)) {
      const body = {
        code: error.code,
        message: error.message,
        ...(error.issues.length > 0 ? { issues: error.issues } : {}),
        ...(error.hint ? { hint: error.hint } : {}),
      };
      return {
        exitCode: 1,
        stdout: parsed.json ? `${JSON.stringify({ error: body }, null, 2)}\n` : "",
        stderr: parsed.json
          ? ""
          : `error (${error.code}): ${error.message}${error.hint ? `\nhint: ${error.hint}` : ""}\n`,
      };
    }
    throw error;
  }
}
