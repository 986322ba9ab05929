export { DeliberateError, databaseUnavailable, errorCodes, toDeliberateError } from "./errors.ts";
export type { ErrorBody, ErrorCode, FieldIssue } from "./errors.ts";
export { ConfigError, readList } from "./config-error.ts";
export { databaseRetryAfterSeconds, isTransientDatabaseFault } from "./transient-fault.ts";
export { survivingDatabaseFaults } from "./database-fault-guard.ts";
