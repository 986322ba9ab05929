// pnpm hooks for this workspace. One: `pnpm start` (or `pnpm run start`) runs with pnpm's reporter silent.
//
// Why: `pnpm start` runs the MCP server over stdio, where stdout is the JSON-RPC channel and nothing else may be
// written to it. pnpm 10 prints its `> deliberate@ start …` banner with console.log (stdout) unless its reporter
// is "silent" (what `pnpm -s` sets); `loglevel` does not reach the banner, and `reporter=silent` in .npmrc would
// hide every other command's output too (install's included). The `updateConfig` hook runs for every command,
// before the reporter is chosen, so it can silence just this one. The server and the start script's build write
// their own errors to stderr; a failure still ends with the script's exit code. An explicit `--reporter` wins.

/** pnpm options that take a value as the next word, so that word is not mistaken for the command. */
const optionsWithValue = new Set([
  "-C",
  "--dir",
  "-F",
  "--filter",
  "--filter-prod",
  "--reporter",
  "--loglevel",
  "--workspace-concurrency",
  "--store-dir",
  "--test-pattern",
  "--changed-files-ignore-pattern",
]);

/** The words of pnpm's command line that are not options (nor option values): the command, then its arguments. */
function positionalWords(argv) {
  const words = [];
  for (let index = 0; index < argv.length; index += 1) {
    const word = argv[index];
    if (word === "--") break;
    if (word.startsWith("-")) {
      if (optionsWithValue.has(word)) index += 1;
      continue;
    }
    words.push(word);
  }
  return words;
}

/** Whether pnpm was asked to run the `start` script: `pnpm start`, `pnpm run start`, `pnpm run-script start`. */
function runsStart(argv) {
  const [command, script] = positionalWords(argv);
  return command === "start" || ((command === "run" || command === "run-script") && script === "start");
}

module.exports = {
  hooks: {
    updateConfig(config) {
      if (runsStart(process.argv.slice(2)) && config.cliOptions?.reporter === undefined) config.reporter = "silent";
      return config;
    },
  },
  runsStart,
};
