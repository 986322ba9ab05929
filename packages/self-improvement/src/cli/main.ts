#!/usr/bin/env node
import { existsSync } from "node:fs";
import { ConfigError } from "@deliberate/base";
import { type DatabaseTarget, databaseTargetFromEnvironment, openStore } from "@deliberate/store";
import { parseSelfImprovementEnvironment } from "../config.ts";
import { createSelfImprovementModule } from "../module.ts";
import type { SelfImprovementRepositories } from "../store/repositories/self-improvement.repository.ts";
import { runSelfImproveCommand, selfImproveUsage } from "./self-improve-command.ts";

const usage = `Usage: deliberate <command> ...

Commands:
  self-improve   the self-improvement loop (deliberate self-improve help)`;

/**
 * `deliberate`: opens the service's database (DATABASE_URL for Postgres, else
 * DATABASE_PATH, or --database <path or postgres:// URL>)
 * with the self-improvement module and runs a `self-improve` command. The
 * running service picks up a change (pause, rollback, approve, reject)
 * within its sync interval.
 */
async function main(argv: string[]): Promise<number> {
  const [group, ...rest] = argv;
  if (group === undefined || group === "help" || group === "--help") {
    process.stdout.write(`${usage}\n`);
    return group === undefined ? 2 : 0;
  }
  if (group !== "self-improve") {
    process.stderr.write(`deliberate: unknown command '${group}'\n\n${usage}\n`);
    return 2;
  }
  let target: DatabaseTarget;
  try {
    target = databaseTargetFromEnvironment(process.env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`deliberate self-improve: ${error.message}\n`);
    return 2;
  }
  const commandArguments: string[] = [];
  for (let index = 0; index < rest.length; index += 1) {
    const argument = rest[index] as string;
    if (argument === "--database") {
      const value = rest[index + 1];
      if (value === undefined) {
        process.stderr.write(`deliberate self-improve: --database needs a path\n\n${selfImproveUsage}\n`);
        return 2;
      }
      target = /^postgres(ql)?:\/\//i.test(value)
        ? { dialect: "postgres", url: value }
        : { dialect: "sqlite", path: value };
      index += 1;
    } else commandArguments.push(argument);
  }
  // Reading a database that is not there would create an empty one and report on it: say where it looked instead.
  if (target.dialect === "sqlite" && target.path !== ":memory:" && !existsSync(target.path)) {
    process.stderr.write(
      `deliberate self-improve: no database at ${target.path}.\nhint: point the command at the database the service writes: the service's DATABASE_URL or DATABASE_PATH, or --database <path or postgres:// URL>.\n`,
    );
    return 1;
  }
  let module: ReturnType<typeof createSelfImprovementModule>;
  try {
    module = createSelfImprovementModule(parseSelfImprovementEnvironment(process.env));
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`deliberate self-improve: ${error.message}\n`);
    return 2;
  }
  const store = await openStore<SelfImprovementRepositories>({ target, modules: [module], poolSize: 2 });
  try {
    const output = await runSelfImproveCommand(commandArguments, module.control(store));
    process.stdout.write(output.stdout);
    process.stderr.write(output.stderr);
    return output.exitCode;
  } finally {
    await store.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`deliberate: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
