import packageJson from "../package.json" with { type: "json" };

/** The name and version the server reports in `initialize` (version from package.json). */
export const serverInfo = { name: "deliberate", version: packageJson.version } as const;

/** Shown to clients in `initialize`: how the tools fit together. */
export const serverInstructions = [
  "Deliberate keeps an agent's reasoning outside the model: structure, state and numbers are stored and computed server-side.",
  "Pass the session_id returned by one call to later calls to continue the same session; reasoning_checkpoint saves and restores a session's state.",
  "Failed calls return isError with a JSON body {code, message, issues[{field, message}], hint}: fix the named fields and call again.",
].join(" ");
