import { describe, expect, it } from "vitest";
import { createCallScope } from "./call-scope.ts";
import { testDialects, useTestStores } from "./testing/index.ts";

const now = "2026-11-27T10:00:00.000Z";

describe.each(testDialects)("call scope on %s", (dialect) => {
  const open = useTestStores(dialect);

  it("routes a repository taken before the first write into the call's transaction, and rollback undoes it", async () => {
    const store = await open();
    const scope = createCallScope(store);
    const sessions = scope.store.sessions;
    expect(scope.hasOpenTransaction()).toBe(false);
    await scope.store.transaction(async (repositories) => {
      await repositories.sessions.create({ id: "early", mode: "linear", now });
    });
    expect(scope.hasOpenTransaction()).toBe(true);
    await sessions.create({ id: "taken-before", mode: "linear", now });
    // The call sees its own writes; the store does not until the commit (on SQLite the one connection is the
    // call's transaction until it ends, so the store is not read meanwhile).
    expect((await sessions.find("taken-before"))?.id).toBe("taken-before");
    if (dialect === "postgres")
      expect(await store.snapshot((repositories) => repositories.sessions.find("taken-before"))).toBeUndefined();
    await scope.rollback();
    expect(scope.hasOpenTransaction()).toBe(false);
    expect(await store.sessions.find("early")).toBeUndefined();
    expect(await store.sessions.find("taken-before")).toBeUndefined();
  });

  it("keeps what the call wrote on commit; later writes open a new transaction; scopes do not see each other's", async () => {
    const store = await open();
    const first = createCallScope(store);
    const second = createCallScope(store);
    await first.store.transaction((repositories) => repositories.sessions.create({ id: "kept", mode: "linear", now }));
    if (dialect === "postgres") expect(await second.store.sessions.find("kept")).toBeUndefined();
    await first.commit();
    expect((await second.store.sessions.find("kept"))?.id).toBe("kept");
    await first.store.transaction((repositories) =>
      repositories.sessions.create({ id: "undone", mode: "linear", now }),
    );
    await first.rollback();
    expect((await store.sessions.find("kept"))?.id).toBe("kept");
    expect(await store.sessions.find("undone")).toBeUndefined();
  });

  it("lists the store's repositories and refuses to close the owner's store", async () => {
    const store = await open();
    const scope = createCallScope(store);
    expect(typeof scope.store.sessions.find).toBe("function");
    expect(scope.store.db).toBe(store.db);
    await expect(scope.store.close()).rejects.toThrow("closed by the service that owns the store");
  });
});
