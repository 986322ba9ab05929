import { isIP } from "node:net";
import type { EnvReader } from "@deliberate/runtime";

export const defaultPort = 9000;
export const defaultHost = "127.0.0.1";

/** Where the service listens. */
export interface BindAddress {
  /** The host without IPv6 brackets. */
  readonly host: string;
  readonly port: number;
}

/**
 * `HOST`/`PORT`, or the spec's `UVICORN_HOST`/`UVICORN_PORT` when the first is unset: a bracketed IPv6 address is
 * unwrapped, and a host that is neither an IP address nor a host name is a problem.
 */
export function readBindAddress(reader: EnvReader): BindAddress {
  const hostVariable = reader.text("HOST") !== undefined ? "HOST" : "UVICORN_HOST";
  const rawHost = reader.text(hostVariable) ?? defaultHost;
  const host = rawHost.startsWith("[") && rawHost.endsWith("]") ? rawHost.slice(1, -1) : rawHost;
  if (isIP(host) === 0 && !/^[a-zA-Z0-9]([a-zA-Z0-9.-]*[a-zA-Z0-9])?$/.test(host)) {
    reader.problem(`${hostVariable} must be an IP address or host name, e.g. 127.0.0.1 or 0.0.0.0 (got "${rawHost}")`, [
      hostVariable,
    ]);
  }
  const port = reader.integer(reader.text("PORT") !== undefined ? "PORT" : "UVICORN_PORT", defaultPort, {
    min: 0,
    max: 65_535,
  });
  return { host, port };
}
