import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const browserDirectory = fileURLToPath(new URL("../src/browser/", import.meta.url));
const sinks =
  /\b(innerHTML|outerHTML|insertAdjacentHTML|document\.write|createContextualFragment|DOMParser|srcdoc)\b|\beval\s*\(|new Function\s*\(/;

function sources(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? sources(join(directory, entry.name))
      : entry.name.endsWith(".ts")
        ? [join(directory, entry.name)]
        : [],
  );
}

describe("browser source", () => {
  it("never turns strings into markup or code (session text reaches the page as text nodes only)", () => {
    const files = sources(browserDirectory);
    expect(files.length).toBeGreaterThan(10);
    const offending = files.flatMap((file) =>
      readFileSync(file, "utf8")
        .split("\n")
        .map((line, index) => ({ line, index }))
        .filter(({ line }) => sinks.test(line))
        .map(({ index }) => `${file}:${index + 1}`),
    );
    expect(offending).toEqual([]);
  });
});
