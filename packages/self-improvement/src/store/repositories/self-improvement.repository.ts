import type { Database } from "@deliberate/store";
import type { Kysely } from "kysely";
import type { DatabaseExecutor, SelfImprovementTables } from "../tables.ts";
import { createActionRepository } from "./action.repository.ts";
import { createCycleRepository } from "./cycle.repository.ts";
import { createDiagnosisRepository } from "./diagnosis.repository.ts";
import { createInvocationSampleRepository } from "./invocation-sample.repository.ts";
import { createLearningRepository } from "./learning.repository.ts";
import { createLeaseRepository } from "./lease.repository.ts";
import { createOverrideRepository } from "./override.repository.ts";
import { createStateRepository } from "./state.repository.ts";
import { createToolModeRepository } from "./tool-mode.repository.ts";

/** Everything the loop stores, bound to a database handle or an open transaction. */
export function createSelfImprovementRepository(handle: Kysely<Database>) {
  const db = handle.withTables<SelfImprovementTables>() as DatabaseExecutor;
  return {
    diagnoses: createDiagnosisRepository(db),
    actions: createActionRepository(db),
    learnings: createLearningRepository(db),
    overrides: createOverrideRepository(db),
    state: createStateRepository(db),
    leases: createLeaseRepository(db),
    cycles: createCycleRepository(db),
    toolModes: createToolModeRepository(db),
    invocations: createInvocationSampleRepository(db),
  };
}

/** The module's repository as it appears in `store.selfImprovement`. */
export type SelfImprovementRepository = ReturnType<typeof createSelfImprovementRepository>;

/** What the module adds to the store. */
export interface SelfImprovementRepositories {
  selfImprovement: SelfImprovementRepository;
}

/** Binds the module's repositories to a handle (the database or an open transaction): `store.selfImprovement`. */
export function createSelfImprovementRepositories(db: Kysely<Database>): SelfImprovementRepositories {
  return { selfImprovement: createSelfImprovementRepository(db) };
}
