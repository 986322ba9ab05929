import type { Database } from "@deliberate/store";
import type { Kysely } from "kysely";
import type { JobTable } from "./tables/job.table.ts";
import type { ReasoningLogTable } from "./tables/reasoning-log.table.ts";

/** The HTTP API's own tables: the durable intent queue and its request log. */
export type ApiTables = {
  reasoning_queue: JobTable;
  reasoning_logs: ReasoningLogTable;
};

/** A handle (database or open transaction) that sees the shared and the API's tables. */
export type DatabaseExecutor = Kysely<Database & ApiTables>;
