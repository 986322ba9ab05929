import { homedir } from "node:os";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { defaultDatabasePath } from "./user-data-path.ts";

describe("defaultDatabasePath", () => {
  it("is under the user's data directory on each platform, never the working directory", () => {
    expect(defaultDatabasePath({ env: {}, platform: "linux", home: "/home/ann" })).toBe(
      "/home/ann/.local/share/deliberate/deliberate.db",
    );
    expect(defaultDatabasePath({ env: { XDG_DATA_HOME: "/data/ann" }, platform: "linux", home: "/home/ann" })).toBe(
      "/data/ann/deliberate/deliberate.db",
    );
    expect(defaultDatabasePath({ env: {}, platform: "darwin", home: "/Users/ann" })).toBe(
      "/Users/ann/Library/Application Support/deliberate/deliberate.db",
    );
    expect(
      defaultDatabasePath({
        env: { APPDATA: "C:\\Users\\ann\\AppData\\Roaming" },
        platform: "win32",
        home: "C:\\Users\\ann",
      }),
    ).toBe("C:\\Users\\ann\\AppData\\Roaming\\deliberate\\deliberate.db");
    expect(defaultDatabasePath({ env: {}, platform: "win32", home: "C:\\Users\\ann" })).toBe(
      "C:\\Users\\ann\\AppData\\Roaming\\deliberate\\deliberate.db",
    );
    expect(defaultDatabasePath({ env: {} })).toMatch(
      new RegExp(`^${homedir().replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`),
    );
  });

  it("ignores a blank or relative XDG_DATA_HOME (the XDG specification says relative paths are invalid)", () => {
    fc.assert(
      fc.property(fc.constantFrom("", "  ", "data", "./data", "~/data"), (xdg) => {
        expect(defaultDatabasePath({ env: { XDG_DATA_HOME: xdg }, platform: "linux", home: "/home/ann" })).toBe(
          "/home/ann/.local/share/deliberate/deliberate.db",
        );
      }),
    );
  });
});
