import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface FixturePackage {
  scripts?: Record<string, string>;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  /** Its test settings (`"deliberate": { "testRun", "engineDialect" }`). */
  deliberate?: Record<string, unknown>;
  /** Executables to put in the package's node_modules/.bin: name → shell script body. */
  bin?: Record<string, string>;
}

export interface FixtureRoot {
  scripts?: Record<string, string>;
  /** The root's `deliberate` field (its tasks' dependencies). */
  deliberate?: unknown;
  /** pnpm-workspace.yaml's text (default: `packages/*` and another key). */
  workspaceYaml?: string;
}

/** A throwaway pnpm workspace: the root's scripts and settings, and packages under packages/<folder>. */
export function fixtureWorkspace(
  root: FixtureRoot,
  packages: Record<string, FixturePackage & { name: string }>,
): { directory: string; remove(): void } {
  const directory = mkdtempSync(join(tmpdir(), "deliberate-tasks-"));
  writeFileSync(
    join(directory, "pnpm-workspace.yaml"),
    root.workspaceYaml ?? 'packages:\n  - "packages/*"\n# a comment\nonlyBuiltDependencies:\n  - esbuild\n',
  );
  writeFileSync(
    join(directory, "package.json"),
    JSON.stringify({
      name: "fixture-root",
      private: true,
      scripts: root.scripts ?? {},
      ...(root.deliberate === undefined ? {} : { deliberate: root.deliberate }),
    }),
  );
  for (const [folder, pkg] of Object.entries(packages)) {
    const packageDirectory = join(directory, "packages", folder);
    mkdirSync(packageDirectory, { recursive: true });
    const { bin, ...manifest } = pkg;
    writeFileSync(join(packageDirectory, "package.json"), JSON.stringify(manifest));
    for (const [name, body] of Object.entries(bin ?? {})) {
      const binDirectory = join(packageDirectory, "node_modules", ".bin");
      mkdirSync(binDirectory, { recursive: true });
      writeFileSync(join(binDirectory, name), `#!/bin/sh\n${body}\n`);
      chmodSync(join(binDirectory, name), 0o755);
    }
  }
  return { directory, remove: () => rmSync(directory, { recursive: true, force: true }) };
}
