import { existsSync } from "node:fs";
import { type Browser, chromium, type Page } from "playwright-core";
import { axeScriptPath } from "./axe-script.ts";

/**
 * Debian's headless shell (package chromium-headless-shell: Chromium's own headless browser, the one Playwright
 * runs headless) when installed, else its full Chromium in headless mode. The same Blink and V8 draw the pages;
 * the shell leaves out the rest of the browser, and the suite costs a quarter less CPU in it.
 */
const headlessShellPath = "/usr/bin/chromium-headless-shell";
export const chromiumPath =
  process.env["CHROMIUM_PATH"] ?? (existsSync(headlessShellPath) ? headlessShellPath : "/usr/bin/chromium");

/** Debian's chromium (see chromiumPath), driven by playwright-core (no browser download). */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(chromiumPath)) {
    throw new Error(
      `Chromium not found at ${chromiumPath}: install it with \`apt-get update && apt-get install -y chromium-headless-shell chromium\` (.ci/run does this), or set CHROMIUM_PATH.`,
    );
  }
  return chromium.launch({
    executablePath: chromiumPath,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
    ],
  });
}

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: string[]; failureSummary?: string }>;
}

/** Runs axe-core in the page (a script of the page's own origin, so the page's CSP stays on). */
export async function axeViolations(page: Page): Promise<AxeViolation[]> {
  if (!(await page.evaluate(() => "axe" in window))) await page.addScriptTag({ url: axeScriptPath });
  return page.evaluate(async () => {
    const axe = (
      window as unknown as {
        axe: { run: (context: Document, options: object) => Promise<{ violations: AxeViolation[] }> };
      }
    ).axe;
    const result = await axe.run(document, { resultTypes: ["violations"] });
    return result.violations.map((violation) => ({
      id: violation.id,
      impact: violation.impact,
      help: violation.help,
      nodes: violation.nodes.slice(0, 3).map((node) => ({ target: node.target, failureSummary: node.failureSummary })),
    }));
  });
}

/** Serious and critical violations, formatted for a failure message. */
export function seriousOf(violations: readonly AxeViolation[]): string[] {
  return violations
    .filter((violation) => violation.impact === "serious" || violation.impact === "critical")
    .map(
      (violation) =>
        `${violation.impact} ${violation.id}: ${violation.help} at ${violation.nodes.map((node) => node.target.join(" ")).join(", ")}`,
    );
}
