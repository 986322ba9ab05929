// Plain JS like index.js, and free of vitest: the task runner (tooling/tasks) reads the same settings.

/**
 * The test settings of a package's manifest (`"deliberate": { "testRun", "engineDialect" }`); throws naming the
 * file, the field and the values it takes.
 */
export function testSettings(manifest, where = "package.json") {
  const settings = manifest?.deliberate ?? {};
  if (settings === null || typeof settings !== "object" || Array.isArray(settings)) {
    throw new Error(`${where}: "deliberate" must be an object such as { "testRun": "own", "engineDialect": true }`);
  }
  const { testRun = "shared", engineDialect = false } = settings;
  if (testRun !== "own" && testRun !== "shared" && testRun !== "separate") {
    throw new Error(
      `${where}: "deliberate.testRun" must be "own", "separate" or "shared" (the default), got ${JSON.stringify(testRun)}`,
    );
  }
  if (typeof engineDialect !== "boolean")
    throw new Error(`${where}: "deliberate.engineDialect" must be true or false, got ${JSON.stringify(engineDialect)}`);
  return { testRun, engineDialect };
}
