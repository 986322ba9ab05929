import { resolve } from "node:path";
import type { ProviderSettings } from "@deliberate/providers";
import type { ConfigClient, ServerConfig } from "./config.ts";
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
    logger.warn(
      `Provider ${settings.provider} selected but ${settings.missing} is not set: model-backed tools return PROVIDER_NOT_CONFIGURED naming it.`,
      {
        provider: settings.provider,
        reason: settings.reason,
      },
    );
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

/** How to connect a client, logged once the transport is up. */
export function connectionHelp(options: {
  config: ServerConfig;
  scriptPath: string;
  nodePath: string;
  url?: string;
}): string[] {
  const { config } = options;
  if (config.transport.kind === "http") {
    const header = config.transport.token !== undefined ? ` --header "Authorization: Bearer $MCP_HTTP_TOKEN"` : "";
    return [
      `MCP over Streamable HTTP at ${options.url ?? "(unknown)"} (health: GET /healthz)`,
      `Connect Claude Code: claude mcp add --transport http deliberate ${options.url ?? ""}${header}`,
    ];
  }
  const script = quote(resolve(options.scriptPath));
  return [
    "MCP over stdio: waiting for a client on stdin/stdout (this process is meant to be launched by the client).",
    `To connect a client, print a snippet to paste: ${quote(options.nodePath)} ${script} --print-config claude-code (or claude-desktop).`,
  ];
}

/** Variables worth passing to the launched server: provider, model and behaviour settings. */
const forwardedVariable =
  /^(ANTHROPIC_|OPENAI_|DELIBERATE_|HOST_COMPLETION_TTL_SECONDS$|REQUEST_TIMEOUT_MS$|MAX_RETRIES$|LOG_LEVEL$)/;
/** Settings of the test harness, not of the server: never forwarded. */
const testVariable = /^DELIBERATE_TEST_/;
/** Variables whose values are secrets: referenced or left as a placeholder, never printed. */
const secretVariable = /(KEY|TOKEN|SECRET|PASSWORD)/;
/** A URL with credentials in it (`scheme://user:password@host`) is a secret whatever its variable is called. */
const credentialsInUrl = /^[a-z][a-z0-9+.-]*:\/\/[^/@\s]*:[^/@\s]*@/i;

/**
 * A snippet that launches this server from a client, to paste as is
 * (`deliberate-mcp --print-config claude-code|claude-desktop`): the absolute
 * script and database paths, the Node that runs it now (`nodePath`, the absolute
 * `process.execPath`: a client's own `node` may be another major, for which the
 * native SQLite module was not built), and the provider, behaviour and module variables set now
 * (every variable a default module declares). Secrets are
 * never printed: Claude Code's command reads them from the shell (`"$NAME"`),
 * Claude Desktop's JSON gets a `<NAME>` placeholder to replace.
 */
export function clientConfigSnippet(options: {
  client: ConfigClient;
  config: ServerConfig;
  scriptPath: string;
  nodePath: string;
  env: Record<string, string | undefined>;
}): string {
  const script = resolve(options.scriptPath);
  // A Postgres URL carries its password: passed on like a secret, never printed.
  const database = options.config.database;
  const env: Array<[string, string, boolean]> = [
    database.dialect === "postgres"
      ? ["DATABASE_URL", database.url, true]
      : ["DATABASE_PATH", resolve(database.path), false],
  ];
  // Every variable a composed default module declares is a setting of the server too (reported under `modules`).
  const declared = new Set(
    Object.values(options.config.moduleSettings.report).flatMap((values) => Object.keys(values)),
  );
  for (const [name, value] of Object.entries(options.env).sort(([a], [b]) => a.localeCompare(b))) {
    if (
      value === undefined ||
      value.trim() === "" ||
      !(forwardedVariable.test(name) || declared.has(name)) ||
      testVariable.test(name)
    )
      continue;
    env.push([name, value, secretVariable.test(name) || credentialsInUrl.test(value)]);
  }
  if (options.client === "claude-code") {
    const flags = env.map(([name, value, secret]) => `-e ${name}=${secret ? `"$${name}"` : quote(value)}`).join(" ");
    return `claude mcp add deliberate ${flags} -- ${quote(options.nodePath)} ${quote(script)}\n`;
  }
  const desktop = {
    mcpServers: {
      deliberate: {
        command: options.nodePath,
        args: [script],
        env: Object.fromEntries(env.map(([name, value, secret]) => [name, secret ? `<${name}>` : value])),
      },
    },
  };
  return `${JSON.stringify(desktop, null, 2)}\n`;
}
