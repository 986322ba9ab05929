/**
 * Lint step: an internal package's public API (`src/index.ts`) exports only what other workspace packages import.
 *
 * For every private package under `packages/`, each name its `src/index.ts` exports (values and types alike) must be
 * imported from `@deliberate/<name>` by at least one file of another workspace package (packages, services, tooling;
 * their tests count). A package's own files never count: inside a package, import the module that defines the name.
 * Public packages (`private` not true: the client and the two services) are skipped, as their barrels are their users'
 * API; an internal name kept for a reason no import shows is listed in `barrel-exports.exceptions.json` with that
 * reason. A listed name that is imported after all, or no longer exported, fails too (the list only shrinks).
 *
 * Run: `node --import tsx tooling/lint/barrel-exports.ts` (part of `pnpm lint`); `--list` prints every export with
 * its importers' count, `--unused` only the unused ones.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const exceptionsPath = join(dirname(fileURLToPath(import.meta.url)), "barrel-exports.exceptions.json");

/** One name a barrel exports. */
export interface BarrelExport {
  readonly name: string;
  readonly kind: "value" | "type";
}

/** A workspace package: its name, folder and whether it is published. */
export interface WorkspacePackage {
  readonly name: string;
  readonly directory: string;
  readonly private: boolean;
}

const skippedDirectories = new Set(["node_modules", "dist", ".turbo", "coverage", "data"]);

function* sourceFiles(directory: string): Generator<string> {
  for (const entry of readdirSync(directory, { withFileTypes: true })) {
    if (entry.isDirectory()) {
      if (!skippedDirectories.has(entry.name)) yield* sourceFiles(join(directory, entry.name));
    } else if (/\.(ts|tsx|mts|cts|js|mjs|cjs)$/.test(entry.name) && !entry.name.endsWith(".d.ts")) {
      yield join(directory, entry.name);
    }
  }
}

/** Every workspace package under packages/, services/ and tooling/. */
export function workspacePackages(workspaceRoot = root): WorkspacePackage[] {
  const found: WorkspacePackage[] = [];
  for (const group of ["packages", "services", "tooling"]) {
    const groupDirectory = join(workspaceRoot, group);
    if (!existsSync(groupDirectory)) continue;
    for (const entry of readdirSync(groupDirectory, { withFileTypes: true })) {
      const manifestPath = join(groupDirectory, entry.name, "package.json");
      if (!entry.isDirectory() || !existsSync(manifestPath)) continue;
      const manifest = JSON.parse(readFileSync(manifestPath, "utf8")) as { name: string; private?: boolean };
      found.push({
        name: manifest.name,
        directory: join(groupDirectory, entry.name),
        private: manifest.private === true,
      });
    }
  }
  return found;
}

/** The names `source` (a barrel) exports, by `export { ... } from`, `export type { ... }` and exported declarations. */
export function barrelExports(path: string, text: string): BarrelExport[] {
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
  const found: BarrelExport[] = [];
  for (const statement of source.statements) {
    if (ts.isExportDeclaration(statement)) {
      if (!statement.exportClause || !ts.isNamedExports(statement.exportClause)) {
        throw new Error(`${path}: \`export *\` hides what a barrel exports; name each export`);
      }
      for (const element of statement.exportClause.elements) {
        found.push({ name: element.name.text, kind: statement.isTypeOnly || element.isTypeOnly ? "type" : "value" });
      }
      continue;
    }
    const modifiers = ts.canHaveModifiers(statement) ? ts.getModifiers(statement) : undefined;
    if (!modifiers?.some((modifier) => modifier.kind === ts.SyntaxKind.ExportKeyword)) continue;
    const isType = ts.isInterfaceDeclaration(statement) || ts.isTypeAliasDeclaration(statement);
    if (ts.isVariableStatement(statement)) {
      for (const declaration of statement.declarationList.declarations) {
        if (ts.isIdentifier(declaration.name)) found.push({ name: declaration.name.text, kind: "value" });
      }
    } else if (
      (ts.isFunctionDeclaration(statement) ||
        ts.isClassDeclaration(statement) ||
        isType ||
        ts.isEnumDeclaration(statement)) &&
      statement.name
    ) {
      found.push({ name: statement.name.text, kind: isType ? "type" : "value" });
    }
  }
  return found;
}

function escapeForPattern(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
}

/**
 * The names one file imports from `specifier` (exactly, not its subpaths): named imports and re-exports, names read
 * off a namespace import (`ns.name`), and names destructured from `await import(specifier)`.
 */
export function importedNames(path: string, text: string, specifier: string): Set<string> {
  const names = new Set<string>();
  if (!text.includes(specifier)) return names;
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
  for (const statement of source.statements) {
    const from = (ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement)) && statement.moduleSpecifier;
    if (!from || !ts.isStringLiteral(from) || from.text !== specifier) continue;
    if (ts.isExportDeclaration(statement)) {
      if (statement.exportClause && ts.isNamedExports(statement.exportClause)) {
        for (const element of statement.exportClause.elements) names.add((element.propertyName ?? element.name).text);
      } else names.add("*");
      continue;
    }
    const bindings = statement.importClause?.namedBindings;
    if (bindings && ts.isNamedImports(bindings)) {
      for (const element of bindings.elements) names.add((element.propertyName ?? element.name).text);
    } else if (bindings && ts.isNamespaceImport(bindings)) {
      const namespace = escapeForPattern(bindings.name.text);
      for (const match of text.matchAll(new RegExp(`\\b${namespace}\\.([A-Za-z_$][\\w$]*)`, "g")))
        names.add(match[1] as string);
    }
  }
  const dynamic = new RegExp(
    `\\{([^{}]*)\\}\\s*=\\s*await\\s+import\\(\\s*["']${escapeForPattern(specifier)}["']\\s*\\)`,
    "g",
  );
  for (const match of text.matchAll(dynamic)) {
    for (const part of (match[1] as string).split(",")) {
      const name = part.split(":")[0]?.trim();
      if (name) names.add(name);
    }
  }
  return names;
}

/** One barrel export and the other packages' files that import it. */
export interface ExportUse extends BarrelExport {
  readonly packageName: string;
  readonly importers: readonly string[];
}

/** Every export of every private package's `src/index.ts`, with the files of other packages importing it. */
export function exportUses(workspaceRoot = root): ExportUse[] {
  const packages = workspacePackages(workspaceRoot);
  const files = packages.flatMap((workspacePackage) =>
    [...sourceFiles(workspacePackage.directory)].map((path) => ({ path, owner: workspacePackage.name })),
  );
  const texts = new Map(files.map((file) => [file.path, readFileSync(file.path, "utf8")]));
  const uses: ExportUse[] = [];
  for (const workspacePackage of packages) {
    const barrel = join(workspacePackage.directory, "src", "index.ts");
    if (
      !workspacePackage.private ||
      relative(workspaceRoot, workspacePackage.directory).split(/[\\/]/)[0] !== "packages" ||
      !existsSync(barrel)
    )
      continue;
    const importersOf = new Map<string, string[]>();
    for (const file of files) {
      if (file.owner === workspacePackage.name) continue;
      for (const name of importedNames(file.path, texts.get(file.path) as string, workspacePackage.name)) {
        importersOf.set(name, [...(importersOf.get(name) ?? []), relative(workspaceRoot, file.path)]);
      }
    }
    for (const exported of barrelExports(barrel, readFileSync(barrel, "utf8"))) {
      uses.push({
        ...exported,
        packageName: workspacePackage.name,
        importers: importersOf.get(exported.name) ?? importersOf.get("*") ?? [],
      });
    }
  }
  return uses;
}

/** Names kept without an importer, by package, each with why. */
export type BarrelExceptions = Readonly<Record<string, Readonly<Record<string, string>>>>;

/** What is wrong: exports nobody else imports, and exception entries that no longer apply. */
export function checkBarrels(uses: readonly ExportUse[], exceptions: BarrelExceptions): string[] {
  const problems: string[] = [];
  const exported = new Set(uses.map((use) => `${use.packageName}:${use.name}`));
  for (const use of uses) {
    const reason = exceptions[use.packageName]?.[use.name];
    if (use.importers.length === 0 && reason === undefined) {
      problems.push(
        `${use.packageName} exports ${use.kind} '${use.name}', which no other workspace package imports: remove it from src/index.ts (import it from its module inside the package)`,
      );
    } else if (use.importers.length > 0 && reason !== undefined) {
      problems.push(
        `${use.packageName}: '${use.name}' is imported by ${use.importers[0]}; remove its entry from barrel-exports.exceptions.json`,
      );
    }
  }
  for (const [packageName, names] of Object.entries(exceptions)) {
    for (const name of Object.keys(names)) {
      if (!exported.has(`${packageName}:${name}`))
        problems.push(
          `${packageName}: '${name}' is listed in barrel-exports.exceptions.json but not exported; remove the entry`,
        );
    }
  }
  return problems;
}

function main(argv: readonly string[]): number {
  const uses = exportUses();
  if (argv.includes("--list") || argv.includes("--unused")) {
    for (const use of uses) {
      if (argv.includes("--unused") && use.importers.length > 0) continue;
      process.stdout.write(`${use.packageName}\t${use.kind}\t${use.name}\t${use.importers.length}\n`);
    }
    return 0;
  }
  const exceptions = existsSync(exceptionsPath)
    ? (JSON.parse(readFileSync(exceptionsPath, "utf8")) as BarrelExceptions)
    : {};
  const problems = checkBarrels(uses, exceptions);
  for (const problem of problems) process.stderr.write(`barrel-exports: ${problem}\n`);
  const count = (kind: BarrelExport["kind"]) => uses.filter((use) => use.kind === kind).length;
  if (problems.length > 0) return 1;
  process.stdout.write(
    `barrel-exports: every export of the internal packages' barrels is imported by another package (${count("value")} values, ${count("type")} types).\n`,
  );
  return 0;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1])
  process.exitCode = main(process.argv.slice(2));
