/**
 * Lint step: every changeset in `.changeset/` is one `changeset version` can read, and it names only workspace
 * packages that are released (not in the config's `ignore` list).
 *
 * A changeset whose front matter a tool rewrote (a formatter once turned `"pkg": patch` and the closing `---` into a
 * Markdown heading) is read by changesets as releasing nothing, silently: its note is lost from the changelog and its
 * package is not bumped. This reads each file with changesets' own parser and fails on a file that releases nothing,
 * an unknown or ignored package, or an empty summary.
 *
 * Run: `node --import tsx tooling/lint/changesets.ts` (part of `pnpm lint`).
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import parseChangeset from "@changesets/parse";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const changesetDirectory = join(root, ".changeset");

/** The workspace's package names, from each package.json under packages/, services/ and tooling/. */
function workspacePackageNames(): Set<string> {
  const names = new Set<string>();
  for (const group of ["packages", "services", "tooling"]) {
    for (const entry of readdirSync(join(root, group), { withFileTypes: true })) {
      if (!entry.isDirectory()) continue;
      try {
        const manifest = JSON.parse(readFileSync(join(root, group, entry.name, "package.json"), "utf8")) as {
          name?: string;
        };
        if (manifest.name !== undefined) names.add(manifest.name);
      } catch {
        // A folder without a package.json is not a package.
      }
    }
  }
  return names;
}

/** What is wrong with one changeset's text, if anything. */
function changesetProblems(text: string, known: ReadonlySet<string>, ignored: ReadonlySet<string>): string[] {
  let parsed: ReturnType<typeof parseChangeset>;
  try {
    parsed = parseChangeset(text);
  } catch (error) {
    return [`changesets cannot read it: ${(error as Error).message.split("\n")[0]}`];
  }
  const problems: string[] = [];
  if (parsed.releases.length === 0)
    problems.push('it releases nothing: the front matter must be `---`, one `"<package>": <bump>` per line, `---`');
  for (const release of parsed.releases) {
    if (!known.has(release.name)) problems.push(`"${release.name}" is not a workspace package`);
    else if (ignored.has(release.name)) problems.push(`"${release.name}" is ignored by .changeset/config.json`);
  }
  if (parsed.summary.trim() === "") problems.push("its summary is empty");
  return problems;
}

function main(): void {
  const config = JSON.parse(readFileSync(join(changesetDirectory, "config.json"), "utf8")) as { ignore?: string[] };
  const known = workspacePackageNames();
  const ignored = new Set(config.ignore ?? []);
  let failures = 0;
  for (const file of readdirSync(changesetDirectory).sort()) {
    if (!file.endsWith(".md") || file === "README.md") continue;
    for (const problem of changesetProblems(readFileSync(join(changesetDirectory, file), "utf8"), known, ignored)) {
      console.error(`.changeset/${file}: ${problem}`);
      failures += 1;
    }
  }
  if (failures > 0) process.exit(1);
}

main();
