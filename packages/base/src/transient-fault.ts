/**
 * How long a caller refused for an unavailable database is told to wait before retrying
 * (`Retry-After`, in seconds): about how long a database restart or fail-over takes to be noticed.
 */
export const databaseRetryAfterSeconds = 2;

// SQLSTATEs that say the database (not the statement) failed, or that the same statement may pass later:
// class 08 connection exceptions, 57P01-57P03 (admin/crash shutdown, cannot connect now), 53300 (too many
// connections), 53000/53100/53200 (insufficient resources, disk full, out of memory), 40001 and 40P01
// (serialization failure, deadlock: the transaction is rolled back and may be retried as is).
const transientSqlStates = new Set([
  "57P01",
  "57P02",
  "57P03",
  "53000",
  "53100",
  "53200",
  "53300",
  "40001",
  "40P01",
  "58030",
]);

// Socket errors of a connection to the database server.
const transientSocketCodes = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ECONNABORTED",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENETDOWN",
  "EAI_AGAIN",
  "ENOTCONN",
]);

// `pg` reports a dropped or unreachable connection with these messages and no code.
const transientMessages = [
  /^Connection terminated/i,
  /Client has encountered a connection error and is not queryable/i,
  /timeout exceeded when trying to connect/i,
  /Client was closed and is not queryable/i,
  /Connection terminated due to connection timeout/i,
];

/**
 * SQLite result codes that pass once another process lets go or the disk recovers: busy and locked
 * (another writer beyond busy_timeout), I/O errors, a full disk, a WAL-index protocol race.
 */
function isTransientSqliteCode(code: string): boolean {
  return /^SQLITE_(BUSY|LOCKED|IOERR|FULL|PROTOCOL)(_|$)/.test(code);
}

function isTransientOne(error: unknown): boolean {
  if (typeof error !== "object" || error === null) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === "string") {
    if (transientSqlStates.has(code) || code.startsWith("08")) return true;
    if (transientSocketCodes.has(code)) return true;
    if (code.startsWith("SQLITE_")) return isTransientSqliteCode(code);
  }
  const message = (error as { message?: unknown }).message;
  return typeof message === "string" && transientMessages.some((pattern) => pattern.test(message));
}

/**
 * Whether `error` says the database is unreachable or momentarily unable to serve (a Postgres restart or
 * fail-over, a dropped connection, a pool that cannot connect, SQLite busy or I/O errors), so the same call
 * may pass later. Looks through `cause` chains and AggregateErrors (bounded), since drivers and callers wrap.
 */
export function isTransientDatabaseFault(error: unknown): boolean {
  const pending: unknown[] = [error];
  for (let seen = 0; pending.length > 0 && seen < 16; seen += 1) {
    const current = pending.shift();
    // A DeliberateError (by its marker: this file imports nothing) already says what it is.
    if (
      typeof current === "object" &&
      current !== null &&
      (current as Record<symbol, unknown>)[Symbol.for("deliberate.error")] === true
    ) {
      return (
        (current as { code?: unknown }).code === "STORAGE" && (current as { retryable?: unknown }).retryable === true
      );
    }
    if (isTransientOne(current)) return true;
    if (typeof current === "object" && current !== null) {
      const { cause, errors } = current as { cause?: unknown; errors?: unknown };
      if (cause !== undefined) pending.push(cause);
      if (Array.isArray(errors)) pending.push(...errors.slice(0, 8));
    }
  }
  return false;
}
