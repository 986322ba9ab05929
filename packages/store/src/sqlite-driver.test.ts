import { describe, expect, it } from "vitest";
import { loadSqliteDriver, sqliteDriverEntry, sqliteDriverPackage } from "./sqlite-driver.ts";

describe("the SQLite driver for this Node", () => {
  it("is better-sqlite3 13 (Node-API) from Node 22 on, and 12 on Node 20", () => {
    expect(sqliteDriverPackage("20.19.0")).toBe("better-sqlite3");
    expect(sqliteDriverPackage("21.7.3")).toBe("better-sqlite3");
    expect(sqliteDriverPackage("22.0.0")).toBe("better-sqlite3-napi");
    expect(sqliteDriverPackage("24.21.0")).toBe("better-sqlite3-napi");
    expect(sqliteDriverPackage("26.1.0")).toBe("better-sqlite3-napi");
  });

  it("loads the package it names, which opens a database", () => {
    expect(sqliteDriverEntry()).toContain(
      `${sqliteDriverPackage() === "better-sqlite3-napi" ? "better-sqlite3@13" : "better-sqlite3@12"}`,
    );
    const Driver = loadSqliteDriver();
    const database = new Driver(":memory:");
    try {
      expect(database.prepare("select sqlite_version() as version").get()).toMatchObject({
        version: expect.any(String),
      });
    } finally {
      database.close();
    }
  });
});
