import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterEach, inject } from "vitest";
import "./provided-context.ts";
import type { DialectName } from "../dialect.ts";
import { openStore, type Store, type StoreContribution } from "../store.ts";

export { countDataRows } from "./count-data-rows.ts";
export { testDialects } from "./dialects.ts";
export { freePort, startTestPostgres, testPostgresAt, withDatabase } from "./embedded-postgres.ts";
export type { TestPostgres } from "./embedded-postgres.ts";
// Outside vitest (benchmarks, replica runs), import "@deliberate/store/testing/postgres" instead.

let fileDatabase: Promise<string> | undefined;
let schemas = 0;

async function postgresAdminUrl(): Promise<string> {
  const fromEnvironment = process.env["DELIBERATE_TEST_DATABASE_URL"]?.trim();
  if (fromEnvironment) return fromEnvironment;
  const url = inject("deliberatePostgresUrl");
  if (!url) {
    throw new Error(
      "No Postgres for this test run: add the store's global setup to vitest.config.ts " +
        '(globalSetup: [fileURLToPath(import.meta.resolve("@deliberate/store/testing/global-setup"))]), ' +
        "set DELIBERATE_TEST_DATABASE_URL, or run with DELIBERATE_TEST_DIALECTS=sqlite.",
    );
  }
  return url;
}

/** This test file's own database on the run's Postgres (created on first use). */
async function databaseOfThisFile(): Promise<string> {
  fileDatabase ??= (async () => {
    const adminUrl = await postgresAdminUrl();
    const name = `file_${randomBytes(6).toString("hex")}`;
    const client = new pg.Client({ connectionString: adminUrl });
    await client.connect();
    try {
      await client.query(`create database "${name}"`);
    } finally {
      await client.end();
    }
    const url = new URL(adminUrl);
    url.pathname = `/${name}`;
    return url.toString();
  })();
  return fileDatabase;
}

/**
 * A fresh, empty place on the dialect for one store: SQLite `:memory:`, or a
 * new schema in this test file's Postgres database (so tests never see each
 * other's rows). Returns the `openStore` options that reach it.
 */
export async function freshTestDatabase(dialect: DialectName): Promise<{ path: string } | { url: string }> {
  if (dialect === "sqlite") return { path: ":memory:" };
  const databaseUrl = await databaseOfThisFile();
  schemas += 1;
  const schema = `s${schemas}_${randomBytes(3).toString("hex")}`;
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(`create schema "${schema}"`);
  } finally {
    await client.end();
  }
  const url = new URL(databaseUrl);
  url.searchParams.set("options", `-c search_path=${schema}`);
  return { url: url.toString() };
}

const places = new WeakMap<object, { path: string } | { url: string }>();

/** Opens a migrated store on a fresh database of the dialect (see `freshTestDatabase`). */
export async function openTestStore<Extra extends object = object>(
  dialect: DialectName,
  options: { modules?: readonly StoreContribution[]; poolSize?: number } = {},
): Promise<Store<Extra>> {
  const where = await freshTestDatabase(dialect);
  const store = await openStore<Extra>({ ...where, modules: options.modules ?? [], poolSize: options.poolSize ?? 4 });
  places.set(store, where);
  return store;
}

/** Options of the function `useTestStores` returns. */
export interface TestStoreOptions {
  modules?: readonly StoreContribution[];
  poolSize?: number;
  /**
   * Opens another store on the same database as this one, as a second replica
   * would: its own pool on Postgres. SQLite in memory cannot be shared, so
   * there it is the same store.
   */
  replicaOf?: Store<object>;
}

/**
 * For a `describe.each(testDialects)` block: a function opening fresh stores
 * on `dialect`, each closed after the test that opened it.
 *
 * ```ts
 * describe.each(testDialects)("thoughts on %s", (dialect) => {
 *   const open = useTestStores(dialect, { modules: [reasoningModule] });
 *   it("appends", async () => { const store = await open(); ... });
 * });
 * ```
 */
export function useTestStores<Extra extends object = object>(
  dialect: DialectName,
  defaults: { modules?: readonly StoreContribution[]; poolSize?: number } = {},
): (options?: TestStoreOptions) => Promise<Store<Extra>> {
  const open: Store[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((store) => store.close()));
  });
  return async (options = {}) => {
    const { replicaOf, ...rest } = options;
    const settings = { ...defaults, ...rest };
    if (replicaOf !== undefined) {
      const where = places.get(replicaOf);
      if (where === undefined) throw new Error("replicaOf: that store was not opened by useTestStores/openTestStore");
      if ("path" in where) return replicaOf as Store<Extra>;
      const replica = await openStore<Extra>({
        ...where,
        modules: settings.modules ?? [],
        poolSize: settings.poolSize ?? 4,
      });
      places.set(replica, where);
      open.push(replica as Store);
      return replica;
    }
    const store = await openTestStore<Extra>(dialect, settings);
    open.push(store as Store);
    return store;
  };
}
