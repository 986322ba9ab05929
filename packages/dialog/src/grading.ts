import type { DialogGradedBy } from "@deliberate/contracts";

/**
 * Who grades when the reviewer's mode runs on `provider`: the host (host-executed) and MCP
 * sampling hand every agent's prompt to the calling client's one model, so the author of the
 * document answers its review too; any server provider makes a separate review call.
 */
export function gradedByOf(provider: string): DialogGradedBy {
  if (provider === "host") return "host";
  if (provider === "sampling") return "sampling";
  return "server_model";
}

/** Whether the scores came from the same client that wrote the document (not an independent review). */
export function gradedByClient(gradedBy: DialogGradedBy | null): boolean {
  return gradedBy === "host" || gradedBy === "sampling";
}
