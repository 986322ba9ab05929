import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

/** axe-core's script; the test server serves it at `axeScriptPath` (see serve-viewer.ts). */
export const axeSource = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

/**
 * Where the test server serves axe-core, on the viewer's own origin: the page's CSP (`script-src 'self'`) admits
 * it as it is, and Chromium keeps it in its HTTP cache with its compiled code. Sending the half-megabyte source
 * over the DevTools protocol into every page instead was a third of the axe checks' CPU, on both sides.
 */
export const axeScriptPath = "/test-support/axe.min.js";
