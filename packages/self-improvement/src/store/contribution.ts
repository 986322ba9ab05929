import type { StoreContribution } from "@deliberate/store";
import { selfImprovementMigrations } from "./migrations/index.ts";
import {
  createSelfImprovementRepositories,
  type SelfImprovementRepositories,
} from "./repositories/self-improvement.repository.ts";

/** The self-improvement module's part of the store, spread into its module: its migrations and its repositories. */
export const selfImprovementStore = {
  migrations: selfImprovementMigrations,
  repositories: createSelfImprovementRepositories,
} satisfies Omit<StoreContribution<SelfImprovementRepositories>, "name">;
