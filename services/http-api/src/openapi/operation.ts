// The operation records live with the operation table (src/pipeline); route files written before it
// (module.routes.ts, self-improvement.routes.ts) import them from here by their first names.
export type { NamedSchema, Operation } from "../pipeline/operation.ts";
/** The operation table (`pipeline/operation-table.ts`) by the name the older route files use. */
export type { OperationTable as OperationCatalog } from "../pipeline/operation-table.ts";
