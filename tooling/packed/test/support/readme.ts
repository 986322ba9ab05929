import { readFileSync } from "node:fs";
import { join } from "node:path";
import { repositoryRoot } from "./global-setup.ts";

/**
 * The code block after `<!-- packed-test: <name> -->` in the root README's user section: the commands
 * this suite runs are the ones users copy.
 */
export function readmeBlock(name: string): string {
  const readme = readFileSync(join(repositoryRoot, "README.md"), "utf8");
  const match = new RegExp(`<!-- packed-test: ${name} -->\\s*\`\`\`\\w*\\n([\\s\\S]*?)\`\`\``).exec(readme);
  if (!match?.[1]) throw new Error(`README.md has no code block after <!-- packed-test: ${name} -->`);
  return match[1];
}

/** The command lines of a shell block (comments after `#` dropped, blank lines skipped). */
export function commandLines(block: string): string[] {
  return block
    .split("\n")
    .map((line) => line.replace(/\s+#.*$/, "").trim())
    .filter((line) => line !== "" && !line.startsWith("#"));
}

/** Splits a command line into words (plain words, quoted ones and words with quoted parts; `$HOME` expanded from `env`). */
export function words(line: string, env: Record<string, string>): string[] {
  const result: string[] = [];
  for (const match of line.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)) {
    const word = match[1] ?? match[2] ?? (match[3] ?? "").replaceAll('"', "");
    result.push(
      match[2] !== undefined
        ? word
        : word.replace(
            /\$(\w+)|\$\{(\w+)\}/g,
            (_, a: string | undefined, b: string | undefined) => env[a ?? b ?? ""] ?? "",
          ),
    );
  }
  return result;
}
