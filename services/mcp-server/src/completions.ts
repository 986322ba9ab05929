import type { ModulePrompt } from "@deliberate/engine";
import { type McpServer, ProtocolError, ProtocolErrorCode } from "@modelcontextprotocol/server";
import type { SessionReader } from "./session-resources.ts";

/** At most this many values per completion (the protocol's limit is 100). */
const maxValues = 100;
/** How many recent sessions session-id completion looks through. */
const sessionsSearched = 500;

export interface CompletionSources {
  /** The prompts served (their tools are served). */
  prompts: readonly ModulePrompt[];
  /** The sessions served as resources, when they are. */
  sessions?: SessionReader;
  /** The resource templates served, whose `session_id` variable completes to session ids. */
  sessionTemplates: readonly string[];
}

function completion(values: readonly string[], prefix: string) {
  const matching = values.filter((value) => value.toLowerCase().startsWith(prefix.toLowerCase()));
  return {
    completion: { values: matching.slice(0, maxValues), total: matching.length, hasMore: matching.length > maxValues },
  };
}

async function sessionIds(sessions: SessionReader | undefined): Promise<string[]> {
  return sessions ? (await sessions.listSessions(sessionsSearched)).map((session) => session.id) : [];
}

/**
 * Serves `completion/complete`: a prompt argument's values (preset ids,
 * workflow names, dialog presets; session ids where the argument takes one)
 * and the `session_id` of the session resource templates, newest first.
 * Only what this server serves is offered: prompts whose tool is listed, and
 * sessions only when sessions are served as resources.
 */
export function registerCompletions(server: McpServer, sources: CompletionSources): void {
  const protocol = server.server;
  protocol.registerCapabilities({ completions: {} });
  protocol.setRequestHandler("completion/complete", async (request) => {
    const { ref, argument } = request.params;
    if (ref.type === "ref/prompt") {
      const prompt = sources.prompts.find((candidate) => candidate.name === ref.name);
      if (!prompt)
        throw new ProtocolError(
          ProtocolErrorCode.InvalidParams,
          `Invalid params: ref.name: no prompt named '${ref.name}'`,
        );
      const declared = prompt.arguments.find((candidate) => candidate.name === argument.name);
      if (!declared)
        throw new ProtocolError(
          ProtocolErrorCode.InvalidParams,
          `Invalid params: argument.name: prompt ${prompt.name} has no argument '${argument.name}'`,
        );
      if (declared.completes === "session_id") return completion(await sessionIds(sources.sessions), argument.value);
      return completion(declared.values ?? [], argument.value);
    }
    if (ref.type === "ref/resource") {
      if (!sources.sessionTemplates.includes(ref.uri) && !ref.uri.startsWith("ui://")) {
        throw new ProtocolError(
          ProtocolErrorCode.InvalidParams,
          `Invalid params: ref.uri: no resource template '${ref.uri}'; resources/templates/list shows them`,
        );
      }
      if (argument.name === "session_id" && sources.sessionTemplates.includes(ref.uri))
        return completion(await sessionIds(sources.sessions), argument.value);
      return completion([], argument.value);
    }
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      "Invalid params: ref.type: use ref/prompt or ref/resource",
    );
  });
}
