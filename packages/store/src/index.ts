export { openStore } from "./store.ts";
export type { OpenStoreOptions, Repositories, Store, StoreContribution } from "./store.ts";
export { defaultInvocationBatch } from "./invocation-batch.ts";
export { preparedQuery } from "./prepared-query.ts";
export { preparedInsert } from "./prepared-insert.ts";
export { rebuildInvocationRollups } from "./rebuild-invocation-rollups.ts";
export { joinTransaction } from "./joined-transaction.ts";
export { defaultDatabasePath } from "./user-data-path.ts";
export { sqliteDriverProblem } from "./sqlite-driver-check.ts";
export { databaseTargetFromEnvironment, describeDatabaseTarget } from "./database-target.ts";
export type { DatabaseTarget } from "./database-target.ts";
export { dialectOf } from "./dialect.ts";
export type { DialectName } from "./dialect.ts";
export { columnTypes } from "./column-types.ts";
export { reservePositions } from "./sequences.ts";
export { checkDatabase } from "./check-database.ts";
export { createLeaderLock, readLease } from "./leader-lock.ts";
export type { LeaderLock, Lease } from "./leader-lock.ts";
export type { Database } from "./database.ts";
export { parseJsonColumn, parseJsonObject } from "./json-column.ts";
export { chunks } from "./repositories/chunks.ts";
export type {
  InvocationAggregate,
  InvocationAggregateFilter,
  NewInvocation,
} from "./repositories/invocation.repository.ts";
export type { SuspendedCall } from "./repositories/suspended-call.repository.ts";
export { createCallScope } from "./call-scope.ts";
export type { CallScope } from "./call-scope.ts";
