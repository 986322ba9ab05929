import { homedir } from "node:os";
import { join, posix, win32 } from "node:path";

/** Where a platform keeps a user's application data, and the environment that moves it. */
export interface UserDataLocation {
  env?: Record<string, string | undefined>;
  platform?: NodeJS.Platform;
  home?: string;
}

/**
 * The default SQLite file: `deliberate/deliberate.db` under the user's data directory, so a server
 * launched by an MCP client from any folder finds the same database (never the client's working
 * directory). Linux and others: `$XDG_DATA_HOME` or `~/.local/share`; macOS: `~/Library/Application
 * Support`; Windows: `%APPDATA%` (else `~\AppData\Roaming`). An XDG_DATA_HOME that is not absolute is
 * ignored, as the XDG specification asks.
 */
export function defaultDatabasePath(location: UserDataLocation = {}): string {
  const env = location.env ?? process.env;
  const platform = location.platform ?? process.platform;
  const home = location.home ?? homedir();
  const given = (name: string) => {
    const value = env[name]?.trim();
    return value === undefined || value === "" ? undefined : value;
  };
  if (platform === "win32")
    return win32.join(given("APPDATA") ?? win32.join(home, "AppData", "Roaming"), "deliberate", "deliberate.db");
  if (platform === "darwin") return posix.join(home, "Library", "Application Support", "deliberate", "deliberate.db");
  const xdg = given("XDG_DATA_HOME");
  return join(
    xdg !== undefined && posix.isAbsolute(xdg) ? xdg : posix.join(home, ".local", "share"),
    "deliberate",
    "deliberate.db",
  );
}
