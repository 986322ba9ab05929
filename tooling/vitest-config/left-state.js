// Plain JS like index.js. What a test file can leave behind that the next file of the same worker would inherit under
// `isolate: false`: the environment, the working folder, the exit code, and the globals tests most often replace
// (fake timers, a stubbed fetch, spied console or output streams, a mocked Math.random).

/** The globals whose identity is checked, as `[label, read, write]`. */
const watchedGlobals = [
  ...["fetch", "setTimeout", "setInterval", "setImmediate", "clearTimeout", "clearInterval", "clearImmediate", "queueMicrotask", "Date", "console", "performance"].map((name) => [
    `globalThis.${name}`,
    () => globalThis[name],
    (value) => {
      globalThis[name] = value;
    },
  ]),
  ["Math.random", () => Math.random, (value) => void (Math.random = value)],
  ["Date.now", () => Date.now, (value) => void (Date.now = value)],
  ["performance.now", () => performance.now, (value) => void (performance.now = value)],
  ...["log", "info", "warn", "error", "debug"].map((name) => [`console.${name}`, () => console[name], (value) => void (console[name] = value)]),
  ["process.stdout.write", () => process.stdout.write, (value) => void (process.stdout.write = value)],
  ["process.stderr.write", () => process.stderr.write, (value) => void (process.stderr.write = value)],
];

/** What a test file could leave changed, as it is now. */
export function snapshotLeftState() {
  return {
    env: { ...process.env },
    cwd: process.cwd(),
    exitCode: process.exitCode,
    globals: watchedGlobals.map(([, read]) => read()),
  };
}

/** Each change from `before` to `after`, one phrase each (environment variables by name only: their values may be secrets). */
export function describeChanges(before, after) {
  const changes = [];
  for (const name of Object.keys(after.env).sort()) {
    if (!(name in before.env)) changes.push(`process.env.${name} set`);
    else if (before.env[name] !== after.env[name]) changes.push(`process.env.${name} changed`);
  }
  for (const name of Object.keys(before.env).sort()) if (!(name in after.env)) changes.push(`process.env.${name} deleted`);
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
  watchedGlobals.forEach(([, read, write], index) => {
    if (read() !== before.globals[index]) write(before.globals[index]);
  });
}
