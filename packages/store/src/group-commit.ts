import type { ControlledTransaction, Kysely } from "kysely";
import type { Database } from "./database.ts";
import { type DirectSqlite, directSqliteOf, runStatement } from "./direct-sqlite.ts";

/**
 * Writes that ride in a group's transaction, just before its COMMIT, instead
 * of paying a transaction and a COMMIT of their own (the store's batched
 * invocation rows). `board` runs its statements synchronously on the group's
 * connection and returns how it learns the outcome: `settle(true)` once the
 * COMMIT landed, `settle(false, error)` when it failed and nothing was written.
 * It must leave the group's transaction as it found it when it fails (its own
 * savepoint): it is never allowed to poison the calls' commit. The one
 * exception is SQLite itself rolling back the whole transaction with the
 * failed statement (SQLITE_FULL, an I/O error): `board` then throws that
 * error, and every member of the group gets it (nothing of theirs landed).
 */
export interface GroupCommitPassenger {
  board(sqlite: DirectSqlite): ((committed: boolean, error?: unknown) => void) | undefined;
  /** Told, once, how to ask whether a group is open now (its COMMIT, soon, will board what waits). */
  attach?(groupOpen: () => boolean): void;
}

/** How many calls at most share one commit. */
export const defaultGroupCommitMembers = 64;

/** One group transaction: the calls sharing its COMMIT. */
interface Group<R> {
  transaction: ControlledTransaction<Database>;
  repositories: R;
  members: number;
  waiting: Array<{ resolve: () => void; reject: (error: unknown) => void }>;
  /** Set when a member's writes could not be undone or kept apart: the whole group is rolled back. */
  poisoned?: unknown;
}

/** A member of `current` (its savepoint `name`): its repositories, and how it ends; `leave` hands the turn on. */
function member<R>(current: Group<R>, name: string, leave: (current: Group<R>) => unknown) {
  let ended = false;
  const end = () => {
    if (ended) throw new Error("This transaction has already ended.");
    ended = true;
  };
  return {
    repositories: current.repositories,
    async commit() {
      end();
      try {
        await runStatement(current.transaction, `release savepoint ${name}`);
      } catch (error) {
        current.poisoned ??= error;
        void leave(current);
        throw error;
      }
      const committed = new Promise<void>((resolve, reject) => current.waiting.push({ resolve, reject }));
      void leave(current);
      await committed;
    },
    async rollback() {
      end();
      try {
        await runStatement(current.transaction, `rollback to savepoint ${name}`);
        await runStatement(current.transaction, `release savepoint ${name}`);
      } catch (error) {
        // Its writes might still be in the group: none of the group may commit.
        current.poisoned ??= error;
        throw error;
      } finally {
        void leave(current);
      }
    },
  };
}

/**
 * Group commit for one SQLite connection: `begin()` opens a member of the
 * group transaction (a savepoint in it) instead of a transaction of its own.
 * Members run one at a time, as transactions on one connection always did
 * (the next `begin()` waits until the member before it committed or rolled
 * back). A member's `rollback()` undoes only its own writes (rollback to its
 * savepoint). A member's `commit()` releases its savepoint and resolves only
 * once the group transaction is committed: that happens as soon as no other
 * member is waiting to begin, at the end of the event loop's turn (or once
 * `maxMembers` have joined), so calls arriving together share one COMMIT, and nothing is acknowledged before it is durable
 * (as durable as any commit: WAL, `synchronous=NORMAL`). When the COMMIT
 * fails, every member of the group gets the error (nothing of theirs landed).
 *
 * A member sees the writes of members before it in its group: they commit
 * with it or fail with it, never one without the other.
 *
 * A `passenger` (see {@link GroupCommitPassenger}) writes its waiting rows in
 * the group's transaction just before the COMMIT, sharing it.
 */
export function groupCommits<R>(
  db: Kysely<Database>,
  bind: (transaction: Kysely<Database>) => R,
  options: { maxMembers?: number; passenger?: GroupCommitPassenger } = {},
): () => Promise<{ repositories: R; commit(): Promise<void>; rollback(): Promise<void> }> {
  const maxMembers = options.maxMembers ?? defaultGroupCommitMembers;
  let group: Group<R> | undefined;
  let busy = false;
  const queue: Array<() => void> = [];
  /** The end-of-turn COMMIT of the open group, when one is scheduled. */
  let scheduled: NodeJS.Immediate | undefined;
  options.passenger?.attach?.(() => group !== undefined);

  /** Waits until no other member is between its begin and its end. */
  function enter(): Promise<void> {
    if (!busy) {
      busy = true;
      return Promise.resolve();
    }
    return new Promise((resolve) => queue.push(resolve));
  }

  /** The member's turn is over: the next member joins, or the group stays open to the end of this turn, or it commits. */
  function leave(current: Group<R>): Promise<void> | undefined {
    const next = queue.shift();
    const open = current.members < maxMembers && current.poisoned === undefined;
    if (next !== undefined && open) {
      next();
      return undefined;
    }
    if (next === undefined && open) {
      // Nobody waits to begin: the group stays open until the end of this turn of the event loop, so calls
      // whose requests arrive in the same turn (one poll of the sockets) join it and share its COMMIT.
      busy = false;
      if (scheduled === undefined) scheduled = setImmediate(commitAtEndOfTurn);
      return undefined;
    }
    return commitGroup(current, next);
  }

  /** The end of a turn: commit the open group, unless a member is in its turn (its `leave` comes back here). */
  function commitAtEndOfTurn(): void {
    scheduled = undefined;
    const open = group;
    if (open === undefined || busy) return;
    busy = true;
    void commitGroup(open, undefined);
  }

  /** Commits (or, poisoned, rolls back) the group and tells its members; then the next member starts a new group. */
  async function commitGroup(current: Group<R>, next: (() => void) | undefined): Promise<void> {
    group = undefined;
    const { waiting } = current;
    let settle: ((committed: boolean, error?: unknown) => void) | undefined;
    try {
      if (current.poisoned !== undefined) throw current.poisoned;
      const sqlite = options.passenger && directSqliteOf(current.transaction);
      if (sqlite) settle = options.passenger?.board(sqlite);
      await current.transaction.commit().execute();
      settle?.(true);
      for (const member of waiting) member.resolve();
    } catch (error) {
      settle?.(false, error);
      await current.transaction
        .rollback()
        .execute()
        .catch(() => undefined);
      for (const member of waiting) member.reject(error);
    }
    const following = next ?? queue.shift();
    if (following !== undefined) following();
    else busy = false;
  }

  return async () => {
    await enter();
    let current: Group<R>;
    let name: string;
    try {
      if (group === undefined) {
        const transaction = await db.startTransaction().execute();
        group = { transaction, repositories: bind(transaction), members: 0, waiting: [] };
      }
      current = group;
      current.members += 1;
      name = `member_${current.members}`;
      await runStatement(current.transaction, `savepoint ${name}`);
    } catch (error) {
      // The group could not be opened or joined: let the next one try (a half-open group is committed with what it has).
      const failed = group;
      if (failed !== undefined) void leave(failed);
      else {
        const next = queue.shift();
        if (next !== undefined) next();
        else busy = false;
      }
      throw error;
    }
    return member(current, name, leave);
  };
}
