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

  it("runs works one at a time in order, the first at once; a failed later work is undone alone", async () => {
    const store = await open();
    const scope = createCallScope(store);
    const order: string[] = [];
    const work = (id: string) =>
      scope.store.transaction(async (repositories) => {
        order.push(`${id} starts`);
        await repositories.sessions.create({ id, mode: "linear", now });
        order.push(`${id} ends`);
      });
    await Promise.all([work("one"), work("two"), work("three")]);
    expect(order).toEqual(["one starts", "one ends", "two starts", "two ends", "three starts", "three ends"]);
    await expect(
      scope.store.transaction(async (repositories) => {
        await repositories.sessions.create({ id: "failed", mode: "linear", now });
        throw new Error("the work failed");
      }),
    ).rejects.toThrow("the work failed");
    // Nothing is pending any more: the commit ends the transaction at once, with the three works and not the failed one.
    await scope.commit();
    expect(scope.hasOpenTransaction()).toBe(false);
    for (const id of ["one", "two", "three"]) expect((await store.sessions.find(id))?.id).toBe(id);
    expect(await store.sessions.find("failed")).toBeUndefined();
  });

  it("commits only after the works and repository calls it was not told about have finished", async () => {
    const store = await open();
    const scope = createCallScope(store);
    await scope.store.transaction((repositories) => repositories.sessions.create({ id: "first", mode: "linear", now }));
    // Not awaited before the commit: a later work, and a repository call made outside a work.
    const later = scope.store.transaction(async (repositories) => {
      await repositories.sessions.create({ id: "later", mode: "linear", now });
    });
    const routed = scope.store.sessions.create({ id: "routed", mode: "linear", now });
    await scope.commit();
    await Promise.all([later, routed]);
    for (const id of ["first", "later", "routed"]) expect((await store.sessions.find(id))?.id).toBe(id);
    // Ending a call with nothing open is a no-op, either way.
    await scope.commit();
    await scope.rollback();
  });

  it("lists the store's repositories and refuses to close the owner's store", async () => {
    const store = await open();
    const scope = createCallScope(store);
    expect(typeof scope.store.sessions.find).toBe("function");
    expect(scope.store.db).toBe(store.db);
    await expect(scope.store.close()).rejects.toThrow("closed by the service that owns the store");
  });
});
