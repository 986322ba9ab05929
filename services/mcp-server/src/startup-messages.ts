import { resolve } from "node:path";
import type { ProviderSettings } from "@deliberate/providers";
import type { ServerConfig } from "./config.ts";
import type { Logger } from "./logger.ts";

/** Logs which provider is in force and why; with none, what model-backed tools will answer. */
export function logProviderChoice(logger: Logger, settings: ProviderSettings): void {
  for (const warning of settings.warnings) logger.warn(warning);
  if (settings.provider === "none") {
    const order = settings.keyless.join(" then ");
    logger.info(
      `No server-side model (${settings.reason}): model-backed tools use, in order, ${order} — ` +
        "sampling asks the connected client's model when the client offers it; host returns the prompts to the calling agent " +
        "(status needs_completion) to answer through reasoning_submit. Set ANTHROPIC_API_KEY, or OPENAI_API_KEY / OPENAI_BASE_URL " +
        "(e.g. http://localhost:11434/v1 for Ollama), to use a server-side model instead.",
      { provider: "none", keyless: settings.keyless, reason: settings.reason },
    );
    return;
  }
  if (settings.missing !== undefined) {
    logger.warn(`Provider ${settings.provider} selected but ${settings.missing} is not set: model-backed tools return PROVIDER_NOT_CONFIGURED naming it.`, {
      provider: settings.provider,
      reason: settings.reason,
    });
    return;
  }
  const connection = settings[settings.provider];
  logger.info(`Using provider ${settings.provider} (${settings.reason})`, {
    provider: settings.provider,
    reason: settings.reason,
    ...(connection.baseURL !== undefined ? { baseURL: connection.baseURL } : {}),
    ...(connection.model !== undefined ? { model: connection.model } : {}),
  });
}

function quote(value: string): string {
  return /^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replaceAll("'", "'\\''")}'`;
}

/** How to connect a client, printed once the transport is up. */
export function connectionHelp(options: { config: ServerConfig; scriptPath: string; url?: string }): string[] {
  const { config } = options;
  if (config.transport.kind === "http") {
    const header = config.transport.token !== undefined ? ` --header "Authorization: Bearer $MCP_HTTP_TOKEN"` : "";
    return [
      `MCP over Streamable HTTP at ${options.url ?? "(unknown)"} (health: GET /healthz)`,
      `Connect Claude Code: claude mcp add --transport http deliberate ${options.url ?? ""}${header}`,
    ];
  }
  const script = resolve(options.scriptPath);
  const database = resolve(config.databasePath);
  return [
    "MCP over stdio: waiting for a client on stdin/stdout (this process is meant to be launched by the client).",
    `Connect Claude Code: claude mcp add deliberate -e DATABASE_PATH=${quote(database)} -- node ${quote(script)}`,
    `Claude Desktop: {"mcpServers":{"deliberate":{"command":"node","args":[${JSON.stringify(script)}],"env":{"DATABASE_PATH":${JSON.stringify(database)}}}}}`,
  ];
}
