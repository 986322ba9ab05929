// Checks every public workspace package's manifest before `pnpm release` publishes it, and names what to fix:
// no private workspace package among its dependencies (npm could not install it), the files it ships, the
// Node it needs, its licence, and a repository matching this clone's origin (npm provenance checks that the
// package was built from the repository it names; checked with --against-origin). Exit 1 with one line per problem.
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync, existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

// `--against-origin` (pnpm release) also compares each repository.url with the clone's origin. The workspace
// root: this repository, or the folder given (the script's test runs it on fixtures).
const args = process.argv.slice(2);
const againstOrigin = args.includes("--against-origin");
const root =
  args.find((arg) => !arg.startsWith("--")) ?? join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const manifests = new Map();
for (const group of ["packages", "services", "tooling"]) {
  for (const name of existsSync(join(root, group)) ? readdirSync(join(root, group)) : []) {
    const path = join(root, group, name, "package.json");
    if (existsSync(path)) manifests.set(`${group}/${name}`, JSON.parse(readFileSync(path, "utf8")));
  }
}
const privateNames = new Set(
  [...manifests.values()].filter((manifest) => manifest.private === true).map((manifest) => manifest.name),
);

/** `git@github.com:o/r.git`, `git+https://github.com/o/r.git` and `https://github.com/o/r` all become `github.com/o/r`. */
const normalize = (url) =>
  url
    .replace(/^git\+/, "")
    .replace(/^git@([^:]+):/, "https://$1/")
    .replace(/^https?:\/\//, "")
    .replace(/\.git$/, "")
    .toLowerCase();
let origin;
if (againstOrigin)
  try {
    origin = execFileSync("git", ["remote", "get-url", "origin"], {
      cwd: root,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    }).trim();
  } catch {
    origin = undefined;
  }

const problems = [];
for (const [folder, manifest] of manifests) {
  if (manifest.private === true) continue;
  const say = (message) => problems.push(`${folder}/package.json (${manifest.name}): ${message}`);
  for (const [dependency, range] of Object.entries(manifest.dependencies ?? {})) {
    if (privateNames.has(dependency))
      say(
        `dependencies lists the private workspace package ${dependency} (${range}): bundle it and move it to devDependencies.`,
      );
  }
  if (!Array.isArray(manifest.files) || manifest.files.length === 0)
    say(`files must list what the package ships, e.g. ["dist", "README.md"].`);
  if (typeof manifest.engines?.node !== "string")
    say(`engines.node must name the Node versions it runs on, e.g. ">=20.19".`);
  if (typeof manifest.license !== "string") say(`license must be an SPDX identifier.`);
  if (manifest.publishConfig?.access !== "public")
    say(`publishConfig.access must be "public" (a scoped package is private by default).`);
  if (typeof manifest.repository?.url !== "string" || manifest.repository?.directory !== folder) {
    say(
      `repository must be { "type": "git", "url": <this repository>, "directory": "${folder}" } (npm provenance links the package to it).`,
    );
  } else if (origin !== undefined && normalize(manifest.repository.url) !== normalize(origin)) {
    say(
      `repository.url is ${manifest.repository.url} but this clone's origin is ${origin}: provenance would not verify.`,
    );
  }
}
if (problems.length > 0) {
  for (const problem of problems) process.stderr.write(`${problem}\n`);
  process.exit(1);
}
