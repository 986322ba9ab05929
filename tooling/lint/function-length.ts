/**
 * Lint step: no top-level function in production source is longer than {@link MAX_LINES} lines.
 *
 * A long function is usually several named steps written as one; the house style asks for the steps.
 * Repositories and migrations are exempt (a query or a schema change reads best whole). Functions that
 * are still too long are named in `function-length.allowlist.json` with their current length: the list
 * may only shrink — a listed function that grew, or one that is now short enough (stale entry), fails too.
 *
 * Run: `node --import tsx tooling/lint/function-length.ts` (part of `pnpm lint`).
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

/** The longest a top-level function may be, in source lines (signature through closing brace). */
export const MAX_LINES = 120;

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const allowlistPath = join(dirname(fileURLToPath(import.meta.url)), "function-length.allowlist.json");

/** One top-level function and its length. */
export interface FunctionLength {
  readonly file: string;
  readonly name: string;
  readonly lines: number;
}

const skippedDirectories = new Set(["node_modules", "dist", ".turbo", "coverage", "data", "testing", "migrations"]);

function isProductionSource(path: string): boolean {
  if (!/\.(ts|tsx|mts)$/.test(path) || path.endsWith(".d.ts")) return false;
  if (/\.(test|spec|bench)\.tsx?$/.test(path) || /(^|\/)testing\.ts$/.test(path)) return false;
  // Repositories and migrations are exempt by the rule itself.
  return !/repositor(y|ies)/i.test(path) && !/migration/i.test(path);
}

function* sourceFiles(directory: string): Generator<string> {
  for (const entry of readdirSync(directory, { withFileTypes: true })) {
    if (entry.isDirectory()) {
      if (skippedDirectories.has(entry.name) || entry.name === "test" || entry.name === "tests") continue;
      yield* sourceFiles(join(directory, entry.name));
    } else if (isProductionSource(entry.name)) {
      yield join(directory, entry.name);
    }
  }
}

function lineSpan(source: ts.SourceFile, node: ts.Node): number {
  const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
  const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
  return end - start + 1;
}

/** Top-level functions of one file: declarations, and `const x = (…) => …` / `function (…)` initialisers. */
export function measureFile(path: string, text: string): FunctionLength[] {
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
  const found: FunctionLength[] = [];
  for (const statement of source.statements) {
    if (ts.isFunctionDeclaration(statement) && statement.body) {
      found.push({ file: path, name: statement.name?.text ?? "default", lines: lineSpan(source, statement) });
    } else if (ts.isVariableStatement(statement)) {
      for (const declaration of statement.declarationList.declarations) {
        const init = declaration.initializer;
        if (init && (ts.isArrowFunction(init) || ts.isFunctionExpression(init)) && ts.isIdentifier(declaration.name)) {
          found.push({ file: path, name: declaration.name.text, lines: lineSpan(source, declaration) });
        }
      }
    }
  }
  return found;
}

/** Every top-level function over {@link MAX_LINES} in `packages/`, `services/` and `tooling/`. */
export function findLongFunctions(): FunctionLength[] {
  const long: FunctionLength[] = [];
  for (const area of ["packages", "services", "tooling"]) {
    for (const file of sourceFiles(join(root, area))) {
      const relativePath = relative(root, file);
      for (const fn of measureFile(relativePath, readFileSync(file, "utf8"))) {
        if (fn.lines > MAX_LINES) long.push(fn);
      }
    }
  }
  return long.sort((a, b) => b.lines - a.lines);
}

type Allowlist = Record<string, number>;

const keyOf = (fn: FunctionLength) => `${fn.file}#${fn.name}`;

function main(): void {
  const allowlist = JSON.parse(readFileSync(allowlistPath, "utf8")) as Allowlist;
  const long = findLongFunctions();
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const fn of long) {
    const key = keyOf(fn);
    seen.add(key);
    const allowed = allowlist[key];
    if (allowed === undefined) {
      problems.push(`${key} is ${fn.lines} lines (limit ${MAX_LINES}): split it into named steps.`);
    } else if (fn.lines > allowed) {
      problems.push(`${key} grew to ${fn.lines} lines (allowlisted at ${allowed}): split it, do not raise the entry.`);
    } else if (fn.lines < allowed) {
      problems.push(
        `${key} shrank to ${fn.lines} lines: lower its entry in function-length.allowlist.json to ${fn.lines}.`,
      );
    }
  }
  for (const key of Object.keys(allowlist)) {
    if (!seen.has(key)) {
      problems.push(`${key} is allowlisted but no longer over ${MAX_LINES} lines (or gone): remove its entry.`);
    }
  }
  if (process.argv.includes("--list")) {
    for (const fn of long) console.log(`${String(fn.lines).padStart(5)}  ${keyOf(fn)}`);
  }
  if (problems.length > 0) {
    console.error(`function-length: ${problems.length} problem(s)\n  ${problems.join("\n  ")}`);
    process.exitCode = 1;
  } else {
    console.log(
      `function-length: no top-level function over ${MAX_LINES} lines outside ${Object.keys(allowlist).length} allowlisted.`,
    );
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) main();
