// What the global setup hands to the test files (vitest provide/inject).
declare module "vitest" {
  export interface ProvidedContext {
    /** Admin URL of the Postgres started for this test run ("" when Postgres is not tested). */
    deliberatePostgresUrl: string;
  }
}

export {};
