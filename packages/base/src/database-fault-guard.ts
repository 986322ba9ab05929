import { isTransientDatabaseFault } from "./transient-fault.ts";

/** What the guard reports: a database fault nobody caught (kept alive), or anything else (the process then exits). */
export type FaultReport = (level: "warn" | "error", message: string, fields: { error: unknown }) => void;

/**
 * A last line of defence for a service process: an error or rejection nobody handled that is a transient
 * database fault (`isTransientDatabaseFault`: the database restarting, a dropped connection, SQLite busy) is
 * logged as a warning and the process keeps serving; anything else is logged and ends the process with exit
 * code 1, as Node would have. Every known path handles database faults itself; this keeps a path that was
 * missed from taking a healthy replica down with it.
 */
export function survivingDatabaseFaults(target: NodeJS.Process, report: FaultReport): () => void {
  const handle = (kind: string) => (error: unknown) => {
    if (isTransientDatabaseFault(error)) {
      report("warn", `${kind} database fault nobody handled; the process keeps serving`, { error });
      return;
    }
    report("error", `${kind}: the process exits`, { error });
    target.exit(1);
  };
  const onException = handle("uncaught exception");
  const onRejection = handle("unhandled rejection");
  target.on("uncaughtException", onException);
  target.on("unhandledRejection", onRejection);
  return () => {
    target.off("uncaughtException", onException);
    target.off("unhandledRejection", onRejection);
  };
}
