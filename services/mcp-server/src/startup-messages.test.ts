import { describe, expect, it } from "vitest";
import { parseCommandLine, type ServerConfig } from "./config.ts";
import { clientConfigSnippet, connectionHelp } from "./startup-messages.ts";

function config(env: Record<string, string> = {}): ServerConfig {
  const parsed = parseCommandLine({ argv: [], env });
  if (parsed.action !== "run") throw new Error("expected run");
  return parsed.config;
}

const env = {
  DATABASE_PATH: "/srv/deliberate/data.db",
  ANTHROPIC_API_KEY: "sk-ant-secret-value",
  ANTHROPIC_MODEL: "claude-sonnet-4-5",
  OPENAI_BASE_URL: "http://localhost:11434/v1",
  HOME: "/home/someone",
  PATH: "/usr/bin",
};

describe("clientConfigSnippet", () => {
  it("claude-code: one pasteable command with absolute paths (the Node that runs it too), settings forwarded, secrets read from the shell", () => {
    const snippet = clientConfigSnippet({
      client: "claude-code",
      config: config(env),
      scriptPath: "/opt/deliberate/dist/main.js",
      nodePath: "/opt/node-22/bin/node",
      env,
    });
    expect(snippet).toBe(
      'claude mcp add deliberate -e DATABASE_PATH=/srv/deliberate/data.db -e ANTHROPIC_API_KEY="$ANTHROPIC_API_KEY" -e ANTHROPIC_MODEL=claude-sonnet-4-5 ' +
        "-e OPENAI_BASE_URL=http://localhost:11434/v1 -- /opt/node-22/bin/node /opt/deliberate/dist/main.js\n",
    );
    expect(snippet).not.toContain("sk-ant-secret-value");
  });

  it("claude-desktop: plain JSON (not a log line, nothing escaped) that parses to the mcpServers entry", () => {
    const snippet = clientConfigSnippet({
      client: "claude-desktop",
      config: config(env),
      scriptPath: "/opt/deliberate/dist/main.js",
      nodePath: "/opt/node-22/bin/node",
      env,
    });
    expect(snippet).not.toContain("sk-ant-secret-value");
    expect(snippet).not.toContain('\\"');
    expect(JSON.parse(snippet)).toEqual({
      mcpServers: {
        deliberate: {
          command: "/opt/node-22/bin/node",
          args: ["/opt/deliberate/dist/main.js"],
          env: {
            DATABASE_PATH: "/srv/deliberate/data.db",
            ANTHROPIC_API_KEY: "<ANTHROPIC_API_KEY>",
            ANTHROPIC_MODEL: "claude-sonnet-4-5",
            OPENAI_BASE_URL: "http://localhost:11434/v1",
          },
        },
      },
    });
  });

  it("never prints a password inside a URL, and leaves the test harness's variables out", () => {
    const withUrls = {
      DATABASE_PATH: "/srv/d.db",
      DELIBERATE_MODULES_URL: "https://user:hunter2@example.com/m.js",
      DELIBERATE_TEST_DATABASE_URL: "postgres://postgres:pw@127.0.0.1:5432/postgres",
    };
    const snippet = clientConfigSnippet({
      client: "claude-code",
      config: config(withUrls),
      scriptPath: "/opt/main.js",
      nodePath: "/usr/bin/node",
      env: withUrls,
    });
    expect(snippet).toBe(
      'claude mcp add deliberate -e DATABASE_PATH=/srv/d.db -e DELIBERATE_MODULES_URL="$DELIBERATE_MODULES_URL" -- /usr/bin/node /opt/main.js\n',
    );
  });

  it("forwards every variable a default module declares (knowledge graph, self-improvement), a secret one by reference", () => {
    const moduleEnv = {
      DATABASE_PATH: "/srv/d.db",
      KNOWLEDGE_GRAPH_MAX_SESSIONS: "5",
      KNOWLEDGE_GRAPH_STATE_SECRET: "0123456789abcdef-secret",
      DELIBERATE_SELF_IMPROVEMENT_MODE: "off",
      UNRELATED: "x",
    };
    const snippet = clientConfigSnippet({
      client: "claude-code",
      config: config(moduleEnv),
      scriptPath: "/opt/main.js",
      nodePath: "/usr/bin/node",
      env: moduleEnv,
    });
    expect(snippet).toBe(
      'claude mcp add deliberate -e DATABASE_PATH=/srv/d.db -e DELIBERATE_SELF_IMPROVEMENT_MODE=off -e KNOWLEDGE_GRAPH_MAX_SESSIONS=5 -e KNOWLEDGE_GRAPH_STATE_SECRET="$KNOWLEDGE_GRAPH_STATE_SECRET" -- /usr/bin/node /opt/main.js\n',
    );
  });

  it("quotes paths with spaces for the shell", () => {
    const snippet = clientConfigSnippet({
      client: "claude-code",
      config: config({ DATABASE_PATH: "/my data/d.db" }),
      scriptPath: "/my apps/main.js",
      nodePath: "/my node/bin/node",
      env: {},
    });
    expect(snippet).toBe(
      "claude mcp add deliberate -e DATABASE_PATH='/my data/d.db' -- '/my node/bin/node' '/my apps/main.js'\n",
    );
  });
});

describe("connectionHelp", () => {
  it("on stdio, points at --print-config instead of printing escaped JSON", () => {
    const lines = connectionHelp({
      config: config(),
      scriptPath: "/opt/deliberate/dist/main.js",
      nodePath: "/usr/bin/node",
    });
    expect(lines.join("\n")).toContain(
      "/usr/bin/node /opt/deliberate/dist/main.js --print-config claude-code (or claude-desktop)",
    );
    expect(lines.join("\n")).not.toContain("mcpServers");
  });
});
