import { existsSync } from "node:fs";
import { dirname, join, sep } from "node:path";
import { loadSqliteDriver, sqliteDriverFolder, sqliteDriverPackage } from "./sqlite-driver.ts";

/** NODE_MODULE_VERSION (the native-module ABI) of each Node major this may meet. */
const nodeMajorOfAbi: Record<string, string> = {
  "108": "18",
  "111": "19",
  "115": "20",
  "120": "21",
  "127": "22",
  "131": "23",
  "137": "24",
  "141": "25",
};

function shellQuote(value: string): string {
  return /^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replaceAll("'", "'\\''")}'`;
}

/** The folder to rebuild in and the package manager that installed it (pnpm keeps packages under node_modules/.pnpm). */
function installationOf(packageFolder: string): { root: string; manager: "npm" | "pnpm" } {
  const marker = `${sep}node_modules${sep}`;
  const first = packageFolder.indexOf(marker);
  const root = first === -1 ? dirname(packageFolder) : packageFolder.slice(0, first);
  return { root, manager: packageFolder.includes(`${marker}.pnpm${sep}`) ? "pnpm" : "npm" };
}

/**
 * The command that rebuilds better-sqlite3 for the Node running now, in the folder that installed it:
 * this Node first on PATH, and its own headers as node-gyp's nodedir when they sit next to it
 * (official and npm-packaged Node builds), so the build needs no download from nodejs.org.
 */
export function sqliteRebuildCommand(packageFolder: string, execPath: string = process.execPath): string {
  const { root, manager } = installationOf(packageFolder);
  if (process.platform === "win32")
    return `cd /d "${root}" && ${manager} rebuild better-sqlite3 (with Node ${process.versions.node} first on PATH)`;
  const nodeHome = dirname(dirname(execPath));
  const headers = existsSync(join(nodeHome, "include", "node", "node.h"))
    ? ` npm_config_nodedir=${shellQuote(nodeHome)}`
    : "";
  return `cd ${shellQuote(root)} && PATH=${shellQuote(dirname(execPath))}:"$PATH"${headers} ${manager} rebuild better-sqlite3`;
}

/**
 * Checks that better-sqlite3's native module loads in this Node. Undefined when it does; otherwise one
 * line saying what is wrong (the Node it was built for and this one, by version and ABI) and the command
 * that fixes it. Services call this before opening SQLite, so a client that launches them with another
 * Node sees the fix instead of "connection closed".
 */
export function sqliteDriverProblem(): string | undefined {
  try {
    const Driver = loadSqliteDriver();
    new Driver(":memory:").close();
    return undefined;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    let packageFolder: string;
    try {
      packageFolder = sqliteDriverFolder();
    } catch {
      packageFolder = process.cwd();
    }
    const fix = sqliteRebuildCommand(packageFolder);
    const abi = /NODE_MODULE_VERSION (\d+)[\s\S]*NODE_MODULE_VERSION (\d+)/.exec(message);
    if (abi?.[1] !== undefined && abi[2] !== undefined) {
      const builtFor = nodeMajorOfAbi[abi[1]];
      const builtForNode = builtFor !== undefined ? `Node ${builtFor}` : "another Node";
      return (
        `better-sqlite3 in ${packageFolder} was built for ${builtForNode} (NODE_MODULE_VERSION ${abi[1]}) but this is Node ${process.versions.node} ` +
        `(NODE_MODULE_VERSION ${abi[2]}, ${process.execPath}). Fix: ${fix} — or launch with the ${builtForNode} that installed it.`
      );
    }
    const oneLine = message.replace(/\s+/g, " ").trim();
    // better-sqlite3 13 (Node 22+) ships its binaries prebuilt: nothing to rebuild, the install itself is incomplete.
    if (sqliteDriverPackage() === "better-sqlite3-napi") {
      return `better-sqlite3 (${packageFolder}) does not load in Node ${process.versions.node} (${oneLine}). Fix: reinstall the package (npm install) on this machine.`;
    }
    return `better-sqlite3's native module does not load in Node ${process.versions.node} (${oneLine}). Fix: ${fix}`;
  }
}
