// Plain JS like index.js. What a test file can leave behind that the next file of the same worker would inherit under
// `isolate: false`: the environment, the working folder, the exit code, and the globals tests most often replace
// (fake timers, a stubbed fetch, spied console or output streams, a mocked Math.random).

/** The globals whose identity is checked, as `[label, owner, key]`. */
const watchedGlobals = [
  ...[
    "fetch",
    "setTimeout",
    "setInterval",
    "setImmediate",
    "clearTimeout",
    "clearInterval",
    "clearImmediate",
    "queueMicrotask",
    "Date",
    "console",
    "performance",
  ].map((key) => [`globalThis.${key}`, globalThis, key]),
  ["Math.random", Math, "random"],
  ["Date.now", Date, "now"],
  ["performance.now", performance, "now"],
  ...["log", "info", "warn", "error", "debug"].map((key) => [`console.${key}`, console, key]),
  ["process.stdout.write", process.stdout, "write"],
  ["process.stderr.write", process.stderr, "write"],
];

/** What a test file could leave changed, as it is now. */
export function snapshotLeftState() {
  return {
    env: { ...process.env },
    cwd: process.cwd(),
    exitCode: process.exitCode,
    globals: watchedGlobals.map(([, owner, key]) => owner[key]),
  };
}

/** Each change from `before` to `after`, one phrase each (environment variables by name only: their values may be secrets). */
export function describeChanges(before, after) {
  const changes = [];
  for (const name of Object.keys(after.env).sort()) {
    if (!(name in before.env)) changes.push(`process.env.${name} set`);
    else if (before.env[name] !== after.env[name]) changes.push(`process.env.${name} changed`);
  }
  for (const name of Object.keys(before.env).sort())
    if (!(name in after.env)) changes.push(`process.env.${name} deleted`);
  if (before.cwd !== after.cwd) changes.push(`the working folder changed to ${after.cwd} (process.chdir)`);
  if (before.exitCode !== after.exitCode) changes.push(`process.exitCode set to ${after.exitCode}`);
  watchedGlobals.forEach(([label], index) => {
    if (before.globals[index] !== after.globals[index]) changes.push(`${label} replaced`);
  });
  return changes;
}

/** Puts everything back as `before` had it, so the worker's next file starts clean even after a failure. */
export function restoreLeftState(before) {
  for (const name of Object.keys(process.env)) if (!(name in before.env)) delete process.env[name];
  Object.assign(process.env, before.env);
  if (process.cwd() !== before.cwd) process.chdir(before.cwd);
  process.exitCode = before.exitCode;
  watchedGlobals.forEach(([, owner, key], index) => {
    if (owner[key] !== before.globals[index]) owner[key] = before.globals[index];
  });
}
