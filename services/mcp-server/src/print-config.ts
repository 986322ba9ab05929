import type { ConfigClient, ServerConfig } from "./config.ts";
import { clientConfigSnippet } from "./startup-messages.ts";
import { describeToolsets, type ToolsetSource } from "./toolsets.ts";

/**
 * `--print-config <client>`: the snippet to paste into the client's configuration on stdout (it names this Node,
 * `process.execPath`, which the caller checked can run the server), and on stderr what to fill in and the toolsets.
 */
export function printConfig(options: {
  client: ConfigClient;
  config: ServerConfig;
  scriptPath: string;
  toolsets: ToolsetSource;
}): void {
  const { config } = options;
  const snippet = clientConfigSnippet({
    client: options.client,
    config,
    scriptPath: options.scriptPath,
    nodePath: process.execPath,
    env: process.env,
  });
  process.stdout.write(snippet);
  if (snippet.includes('"<'))
    process.stderr.write("Replace each <NAME> placeholder with its value (secrets are not printed).\n");
  process.stderr.write(
    `Serving toolsets ${config.toolsets.join(",")}. Set DELIBERATE_TOOLSETS (comma-separated, or all) to choose others:\n${describeToolsets(
      options.toolsets,
    )
      .map((line) => `  ${line}\n`)
      .join("")}`,
  );
}
