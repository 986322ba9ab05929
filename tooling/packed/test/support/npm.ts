import { execFile } from "node:child_process";
import { promisify } from "node:util";

export const run = promisify(execFile);

/**
 * npm's environment for a user's folder: none of the workspace's pnpm settings (pnpm exports its
 * config as npm_config_*), except where Node's headers are (npm_config_nodedir: better-sqlite3 compiles
 * against them when no prebuilt binary downloads) and the registry. No update notices, audit or funding
 * lines, and swagger-ui-dist's @scarf/scarf sends no install analytics.
 */
export function npmEnvironment(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (/^npm_/i.test(name) && !/^npm_config_(nodedir|registry)$/i.test(name)) continue;
    // NODE_PATH: pnpm points it at the workspace's node_modules/.pnpm/node_modules, through which an installed
    // package could still resolve workspace packages: a user's folder has no monorepo anywhere.
    if (/^(PNPM_|INIT_CWD$|VITEST|TURBO_|NODE_PATH$|NODE_OPTIONS$)/.test(name)) continue;
    env[name] = value;
  }
  return {
    ...env,
    npm_config_audit: "false",
    npm_config_fund: "false",
    npm_config_update_notifier: "false",
    SCARF_ANALYTICS: "false",
    ...extra,
  };
}

/** Runs npm (one retry: the registry is the only network this needs). */
export async function npm(
  cwd: string,
  args: string[],
  env: NodeJS.ProcessEnv = npmEnvironment(),
): Promise<{ stdout: string; stderr: string }> {
  for (let attempt = 0; ; attempt += 1) {
    try {
      return await run("npm", args, { cwd, env, timeout: 600_000, maxBuffer: 64 * 1024 * 1024 });
    } catch (error) {
      if (attempt >= 1) throw error;
    }
  }
}
