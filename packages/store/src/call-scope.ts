import { joinTransaction } from "./joined-transaction.ts";
import type { OpenTransaction, Repositories, Store } from "./store.ts";

/** One call's store and how its writes end. See {@link createCallScope}. */
export interface CallScope<Extra extends object = object> {
  /** The store the call works on: reads and writes go to the call's transaction once it has one. */
  readonly store: Store<Extra>;
  /** Commits what the call wrote so far (nothing to do when it wrote nothing); later writes open a new transaction. */
  commit(): Promise<void>;
  /** Undoes what the call wrote since the last commit. */
  rollback(): Promise<void>;
  /** Whether the call has an open transaction (it wrote since the last commit). */
  hasOpenTransaction(): boolean;
}

type Members = Record<string, unknown>;
type Method = (...args: unknown[]) => unknown;

/** Members of a store that are not repositories (its functions, `db`, contributors). */
const notRepositories = new Set(["transaction", "close", "begin", "contributors", "db"]);

/**
 * The keys of `base` that hold repositories, read once per store (a service's
 * store has dozens, and every engine call makes a call scope).
 */
const repositoryKeysByStore = new WeakMap<object, readonly string[]>();
function repositoryKeys(base: object): readonly string[] {
  let keys = repositoryKeysByStore.get(base);
  if (keys === undefined) {
    keys = Object.entries(base)
      .filter(([key, value]) => !notRepositories.has(key) && typeof value === "object" && value !== null)
      .map(([key]) => key);
    repositoryKeysByStore.set(base, keys);
  }
  return keys;
}

/**
 * A stand-in for `base[key]` whose methods run on whichever store `target()`
 * names when they are called (the base store, or the call's joined
 * transaction, or a promise of it while it opens). Non-function members are
 * copied as they are.
 */
function routedRepository(base: Members, key: string, target: () => Members | Promise<Members>): Members {
  const routed: Members = {};
  for (const [name, member] of Object.entries(base[key] as Members)) {
    if (typeof member !== "function") {
      routed[name] = member;
      continue;
    }
    routed[name] = (...args: unknown[]) => {
      const where = target();
      const run = (store: Members) => (store[key] as Record<string, Method | undefined> | undefined)?.[name]?.(...args);
      return where instanceof Promise ? where.then(run) : run(where);
    };
  }
  return routed;
}

/**
 * Makes one call's writes all-or-nothing. The call's first `transaction(work)`
 * opens a real transaction ({@link Store.begin}) that stays open: later
 * `transaction(work)` calls join it (savepoints, one at a time), and every
 * repository method called through `store` (even on a repository object taken
 * before) runs on it. The owner ends it with `commit()` once the call's
 * result is known good, or `rollback()` when the call fails, so a call that
 * fails after writing leaves nothing behind.
 *
 * Reads before the first write use the store itself, so a call holds no
 * transaction while it waits on a model (calls make their model calls before
 * writing; an owner that lets a call write and then call a model commits first).
 * A store without `begin` (a joined transaction) is used as it is.
 */
export function createCallScope<Extra extends object = object>(base: Store<Extra>): CallScope<Extra> {
  const begin = base.begin?.bind(base);
  if (begin === undefined) return { store: base, commit: async () => {}, rollback: async () => {}, hasOpenTransaction: () => false };
  type Opening = Promise<{ open: OpenTransaction<Extra>; joined: Store<Extra> }>;
  let opening: Opening | undefined;

  // The joined store once the open transaction is ready (undefined while it opens or when none is open).
  let active: Store<Extra> | undefined;
  // Where a repository method runs right now: the store until the call's first write, then its transaction.
  const target = (): Members | Promise<Members> => {
    if (opening === undefined) return base as unknown as Members;
    if (active !== undefined) return active as unknown as Members;
    return opening.then(({ joined }) => joined as unknown as Members);
  };

  async function end(how: "commit" | "rollback"): Promise<void> {
    const ending = opening;
    if (ending === undefined) return;
    opening = undefined;
    active = undefined;
    const { open, joined } = await ending;
    // Let the joined work already queued finish before the transaction ends.
    await joined.transaction(async () => undefined).catch(() => undefined);
    await open[how]();
  }

  // A plain object: base's own members (but `begin`), and for each repository a getter that builds its routed
  // stand-in when first read (a call touches a few of the dozens a service has) and keeps it for the call.
  const members: Members = {};
  for (const [key, value] of Object.entries(base)) if (key !== "begin") members[key] = value;
  const store = members as unknown as Store<Extra>;
  const routed = new Map<string, Members>();
  for (const key of repositoryKeys(base)) {
    Object.defineProperty(store, key, {
      enumerable: true,
      configurable: true,
      get: () => {
        let repository = routed.get(key);
        if (repository === undefined) {
          repository = routedRepository(base as unknown as Members, key, target);
          routed.set(key, repository);
        }
        return repository;
      },
    });
  }
  store.transaction = <T>(work: (repositories: Repositories<Extra>) => Promise<T>): Promise<T> => {
    if (opening === undefined) {
      const promise: Opening = begin().then((open) => {
        const joined = joinTransaction(open.repositories, base.contributors);
        if (opening === promise) active = joined;
        return { open, joined };
      });
      opening = promise;
    }
    const started = opening;
    return started.then(({ joined }) => joined.transaction(work));
  };
  // With the call's transaction open, its reads see the call's writes (and on SQLite, the connection is the transaction's).
  store.snapshot = <T>(work: (repositories: Repositories<Extra>) => Promise<T>): Promise<T> => (opening === undefined ? base.snapshot(work) : store.transaction(work));
  (store as { close: () => Promise<void> }).close = () => Promise.reject(new Error("A call's store is closed by the service that owns the store."));
  return { store, commit: () => end("commit"), rollback: () => end("rollback"), hasOpenTransaction: () => opening !== undefined };
}
