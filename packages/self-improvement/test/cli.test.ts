import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { testStorePlace } from "@deliberate/engine/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  circuitBreakerSchema,
  diagnosisSchema,
  healthReportSchema,
  historyEntrySchema,
  statusSchema,
} from "../src/api-schemas.ts";
import { runSelfImproveCommand } from "../src/cli/self-improve-command.ts";
import type { SelfImprovementControl } from "../src/control.ts";
import type { ActionRecord, DiagnosisRecord } from "../src/records.ts";
import { builtCli } from "./support/global-setup.ts";
import { createSyntheticHarness, type SyntheticHarness } from "./support/synthetic.ts";

const run = promisify(execFile);
const directory = mkdtempSync(join(tmpdir(), "deliberate-self-improve-cli-"));
const path = join(directory, "deliberate.db");
let auto: SyntheticHarness;
let advisory: SyntheticHarness;
let control: SelfImprovementControl;
let kept: ActionRecord;
let pending: DiagnosisRecord[];

/**
 * One database with a real history: an action applied by the loop (auto)
 * and kept by the learner, then, in advisory mode, two suggestions awaiting
 * approval.
 */
beforeAll(async () => {
  auto = await createSyntheticHarness({ path, holder: "cli-auto" });
  await auto.record("probe_ask", "probe", 10);
  await auto.record("probe_ask", "probe", 10, { success: false, error_code: "PROVIDER_TIMEOUT" });
  const applied = await auto.module.runCycle();
  await auto.record("probe_ask", "probe", 10);
  await auto.module.runCycle();
  kept = await auto.store.selfImprovement.actions.get(applied.action?.id ?? "");
  await auto.runner.stop(); // hands the lease over
  advisory = await createSyntheticHarness({
    path,
    holder: "cli-advisory",
    clock: auto.clock,
    options: { mode: "advisory" },
  });
  for (const tool of ["other_tool", "third_tool"]) {
    await advisory.record(tool, "echo", 10);
    await advisory.record(tool, "echo", 10, { success: false, error_code: "PROVIDER_TIMEOUT" });
    await advisory.module.runCycle();
  }
  pending = await advisory.store.selfImprovement.diagnoses.list({ status: "pending" });
  control = advisory.module.control(advisory.store);
});

afterAll(async () => {
  await advisory?.close();
  await auto?.close();
  rmSync(directory, { recursive: true, force: true });
});

const command = (...argv: string[]) => runSelfImproveCommand(argv, control);
// biome-ignore lint/suspicious/noExplicitAny: tests read JSON output field by field
const json = async (...argv: string[]): Promise<any> => {
  const output = await command(...argv, "--json");
  expect(output.exitCode, output.stderr).toBe(0);
  return JSON.parse(output.stdout);
};

describe("deliberate self-improve", () => {
  it("status: readable pairs and the overrides in force, or JSON", async () => {
    expect(pending).toHaveLength(2);
    const output = await command("status");
    expect(output.exitCode).toBe(0);
    expect(output.stdout).toMatch(/^mode: {21}advisory$/m);
    expect(output.stdout).toMatch(/^leader: {19}cli-advisory \(until 2026-11-24 /m);
    expect(output.stdout).toMatch(/^circuit breaker: {10}closed, 0 consecutive failure\(s\)$/m);
    expect(output.stdout).toMatch(
      /^last cycle: {15}2026-11-24 \d\d:\d\d:\d\dZ advised: suggested echo\.timeoutMs 300 → 2300; awaiting approval$/m,
    );
    expect(output.stdout).toMatch(/^pending diagnoses: {8}2$/m);
    expect(output.stdout).toMatch(/^actions in the last hour: 1 of 50$/m);
    expect(output.stdout).toContain("Overrides in force:\nTARGET           VALUE  ACTION");
    expect(output.stdout).toMatch(new RegExp(`^probe\\.timeoutMs  2300   ${kept.id}  2026-11-24 `, "m"));
    const status = statusSchema.strict().parse(await json("status"));
    expect(status).toMatchObject({
      mode: "advisory",
      pending_diagnoses: 2,
      overrides: [{ target: "probe.timeoutMs", value: 2300, action_id: kept.id }],
      circuit_breaker: { state: "closed" },
    });
  });

  it("history: actions with their status, reward and confidence; --outcome filters; --verbose adds the lessons", async () => {
    const output = await command("history");
    expect(output.stdout.split("\n")[0]).toMatch(
      /^ACTION {20,}APPLIED {15}TARGET {11}CHANGE {7}BY {4}STATUS {2}REWARD {2}CONFIDENCE$/,
    );
    expect(output.stdout).toContain(`${kept.id}  `);
    expect(output.stdout).toMatch(/probe\.timeoutMs {2}300 -> 2300 {2}loop {2}kept {4}1\.00 {4}0\.50/);
    const verbose = await command("history", "--verbose");
    expect(verbose.stdout).toContain(
      `${kept.id}: Changing probe.timeoutMs 300 → 2300 improved probe_ask: error_rate 100.0% → 0.0%`,
    );
    expect(await json("history", "--outcome", "rolled_back")).toEqual([]);
    expect(
      historyEntrySchema
        .strict()
        .array()
        .parse(await json("history", "--outcome", "kept"))[0],
    ).toMatchObject({ id: kept.id, status: "kept", target: "probe.timeoutMs" });
    const bad = await command("history", "--outcome", "great");
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain(
      "--outcome must be one of evaluating, kept, rolled_back, reverted, inconclusive, got 'great'",
    );
  });

  it("diagnostics: one row per diagnosis; --status filters; --verbose gives the description, cause and rationale", async () => {
    const output = await command("diagnostics");
    const [header, , ...rows] = output.stdout.trimEnd().split("\n");
    expect(header).toMatch(/^DIAGNOSIS +CREATED +TOOL +TRIGGER +SEVERITY +ANALYZER +SUGGESTION +STATUS$/);
    expect(rows).toHaveLength(3);
    expect(rows.filter((row) => row.includes("pending"))).toHaveLength(2);
    expect(output.stdout).toMatch(
      /probe_ask +error_rate 100\.0% vs 0\.0% +critical +rules +probe\.timeoutMs 300 -> 2300 +applied/,
    );
    const verbose = await command("diagnostics", "--status", "pending", "--verbose", "--limit", "1");
    expect(verbose.stdout).toContain("(rules, rule timeouts-raise-timeout)");
    expect(verbose.stdout).toContain("  cause: Model calls time out before the provider answers");
    expect(verbose.stdout).toContain("  status: pending (awaiting approval (advisory mode))");
    expect(
      diagnosisSchema
        .strict()
        .array()
        .parse(await json("diagnostics", "--status", "pending")),
    ).toHaveLength(2);
    expect((await command("diagnostics", "--limit", "0")).exitCode).toBe(2);
  });

  it("config: the effective settings and the allowlist", async () => {
    const output = await command("config");
    expect(output.stdout).toMatch(/^mode: +advisory$/m);
    expect(output.stdout).toMatch(/^circuit breaker: +opens after 3 failures, for 5m, closes after 2 successes$/m);
    expect(output.stdout).toContain(
      "Allowlist:\nSETTING         MIN   MAX    STEP  MAX STEPS\n--------------  ----  -----  ----  ---------",
    );
    expect(output.stdout).toMatch(/^timeoutMs +100 +5000 +1000 +2$/m);
    expect(await json("config")).toMatchObject({ mode: "advisory", circuitBreaker: { failureThreshold: 3 } });
  });

  it("circuit-breaker: the state and thresholds; reset closes it", async () => {
    const output = await command("circuit-breaker");
    expect(output.stdout).toBe(
      [
        "state:                closed",
        "consecutive failures: 0 (opens at 3)",
        "opened at:            -",
        "reopens at:           -",
        "half-open successes:  0 (closes at 2)",
        "last failure:         -",
        "",
      ].join("\n"),
    );
    expect(circuitBreakerSchema.strict().parse(await json("circuit-breaker", "reset"))).toMatchObject({
      state: "closed",
      failure_threshold: 3,
      reset_timeout_ms: 300_000,
      success_threshold: 2,
    });
    expect((await command("circuit-breaker", "open")).exitCode).toBe(2);
  });

  it("baselines: per tool and per mode, the window against the baseline, and the triggers", async () => {
    const output = await command("baselines");
    expect(output.stdout.split("\n")[0]).toMatch(
      /^KIND +NAME +STATUS +WINDOW +BASELINE +ERROR_RATE NOW \/ BASE +LATENCY_P95 NOW \/ BASE +QUALITY NOW \/ BASE +REPAIR_RATE NOW \/ BASE$/,
    );
    expect(output.stdout).toMatch(
      /^tool +probe_ask +ready +10 +20 +0\.0% \/ 0\.0% +20 ms \/ 20 ms +0\.80 \/ 0\.80 +0\.0% \/ 0\.0%$/m,
    );
    expect(output.stdout).toMatch(/^mode +echo +ready/m);
    expect(output.stdout).toContain("Triggers:\nTOOL");
    expect(output.stdout).toMatch(/^other_tool +error_rate +100\.0% +0\.0% +100% +critical$/m);
    const report = healthReportSchema.parse(await json("baselines"));
    expect(report.tools.map((tool) => tool.name)).toEqual(["other_tool", "probe_ask", "third_tool"]);
  });

  it("pause <duration> and pause 0", async () => {
    const paused = await command("pause", "2h");
    expect(paused.stdout).toMatch(/^Paused until 2026-11-24 \d\d:\d\d:\d\dZ\.\n$/);
    expect((await json("status")).paused_until).not.toBeNull();
    expect((await command("pause", "0")).stdout).toBe("Resumed: the loop runs at its next cycle.\n");
    const bad = await command("pause", "later");
    expect(bad).toMatchObject({ exitCode: 1 });
    expect(bad.stderr).toBe(
      "error (INVALID_INPUT): Not a duration: 'later'.\nhint: Pause with a duration such as 30m; 0 resumes.\n",
    );
    expect((await command("pause")).stderr).toContain("pause needs <duration>");
  });

  it("approve <diagnosis>, reject <diagnosis> [reason]", async () => {
    const [second, first] = pending;
    const approved = await command("approve", first?.id ?? "");
    expect(approved.stdout).toMatch(
      /^Applied sia_\w+: echo\.timeoutMs 300 -> 2300; measured after other_tool, third_tool have enough calls\.\n$/,
    );
    expect(advisory.engine.settingsFor("echo").timeoutMs).toBe(2300);
    const rejected = await command("reject", second?.id ?? "", "provider", "outage");
    expect(rejected.stdout).toBe(`Rejected ${second?.id}: provider outage.\n`);
    const again = await command("approve", first?.id ?? "", "--json");
    expect(again.exitCode).toBe(1);
    expect(JSON.parse(again.stdout)).toEqual({
      error: {
        code: "CONFLICT",
        message: `Diagnosis ${first?.id} is applied, not awaiting approval.`,
        issues: [{ field: "diagnosis_id", message: "status applied" }],
        hint: "Approve a diagnosis listed as pending by `deliberate self-improve diagnostics`.",
      },
    });
  });

  it("rollback <action> [reason]", async () => {
    const output = await command("rollback", kept.id, "clients", "time", "out");
    expect(output.stdout).toBe(`Rolled back ${kept.id}: probe.timeoutMs 2300 -> 300 (configured; override removed).\n`);
    expect(advisory.engine.settingsFor("probe").timeoutMs).toBeUndefined();
    const missing = await command("rollback", "sia_nope");
    expect(missing.exitCode).toBe(1);
    expect(missing.stderr).toContain(
      "error (NOT_FOUND): No action 'sia_nope'.\nhint: List actions with `deliberate self-improve history`",
    );
  });

  it("usage mistakes exit 2 with the usage", async () => {
    expect(await command()).toMatchObject({ exitCode: 2 });
    const unknown = await command("explode");
    expect(unknown.exitCode).toBe(2);
    expect(unknown.stderr).toContain(
      "deliberate self-improve: unknown command 'explode'\n\nUsage: deliberate self-improve <command>",
    );
    expect((await command("status", "--frobnicate")).stderr).toContain("unknown option --frobnicate");
    expect((await command("help")).stdout).toContain("rollback <action> [reason]");
    expect(await command("--help")).toMatchObject({ exitCode: 0, stderr: "" });
    expect((await command("status", "--help")).stdout).toContain("DATABASE_URL");
  });

  it("the built `deliberate` command opens DATABASE_PATH (DATABASE_URL on Postgres) and reads the same environment as the services", async () => {
    // With DELIBERATE_TEST_ENGINE_DIALECT=postgres the harnesses' database is a Postgres schema: the command gets its URL.
    const place = await testStorePlace(path);
    const database = "url" in place ? place.url : place.path;
    const variable = "url" in place ? { DATABASE_URL: place.url } : { DATABASE_PATH: place.path };
    // The shell says auto and a one-minute cycle; the service writing this database runs advisory, hourly: status shows the service's.
    const environment = {
      ...process.env,
      ...variable,
      DELIBERATE_SELF_IMPROVEMENT_MODE: "auto",
      DELIBERATE_SELF_IMPROVEMENT_CYCLE_MS: "60000",
    };
    const status = await run(process.execPath, [builtCli, "self-improve", "status", "--json"], { env: environment });
    expect(JSON.parse(status.stdout)).toMatchObject({
      settings_from: { source: "service", holder: "cli-advisory" },
      mode: "advisory",
      cycle_ms: 3_600_000,
      overrides: [{ target: "echo.timeoutMs", value: 2300 }],
    });
    const text = await run(process.execPath, [builtCli, "self-improve", "status"], { env: environment });
    expect(text.stdout).toMatch(/^settings from: +the service cli-advisory \(recorded /m);
    expect(text.stdout).toMatch(/^mode: +advisory$/m);
    // --help exits 0 with the usage, wherever it appears (it exited 2 before).
    for (const argv of [
      ["--help"],
      ["self-improve", "--help"],
      ["self-improve", "status", "--help"],
      ["self-improve", "-h"],
    ]) {
      const help = await run(process.execPath, [builtCli, ...argv], { env: environment });
      expect(help.stdout).toContain("Usage: deliberate");
    }
    const paused = await run(process.execPath, [builtCli, "self-improve", "pause", "45m", "--database", database], {
      env: { ...process.env },
    });
    expect(paused.stdout).toMatch(/^Paused until /);
    // The command's clock is the real one; the pause it wrote is in the shared table.
    expect(await advisory.store.selfImprovement.state.get<string>("paused_until")).toMatch(/^20\d\d-/);
    const wrong = await run(process.execPath, [builtCli, "nothing"], { env: { ...process.env } }).catch(
      (error: { code: number; stderr: string }) => error,
    );
    expect(wrong).toMatchObject({ code: 2 });
    expect((wrong as { stderr: string }).stderr).toContain("deliberate: unknown command 'nothing'");
    const badEnvironment = await run(process.execPath, [builtCli, "self-improve", "status", "--database", database], {
      env: { ...process.env, DELIBERATE_SELF_IMPROVEMENT_MODE: "maybe" },
    }).catch((error: { code: number; stderr: string }) => error);
    expect(badEnvironment).toMatchObject({ code: 2 });
    // A path where no database is: said, and nothing created (it made an empty database and reported on that).
    const nowhere = join(directory, "elsewhere", "deliberate.db");
    const missing = await run(process.execPath, [builtCli, "self-improve", "status"], {
      env: { ...process.env, DATABASE_URL: "", DATABASE_PATH: nowhere },
    }).catch((error: { code: number; stderr: string }) => error);
    expect(missing).toMatchObject({ code: 1 });
    expect((missing as { stderr: string }).stderr).toContain(`no database at ${nowhere}`);
    expect(existsSync(nowhere)).toBe(false);
    expect((badEnvironment as { stderr: string }).stderr).toContain(
      'DELIBERATE_SELF_IMPROVEMENT_MODE must be one of auto, advisory, off (got "maybe")',
    );
  }, 180_000); // spawns the built command ten times: seconds each on a loaded machine
});
