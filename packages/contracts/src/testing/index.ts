/**
 * Test helpers over the contracts, for the services' test suites (not part of
 * any service's runtime): wrong values for a published JSON Schema's fields
 * and broken JSON, as the REST and MCP fuzz tests generate them.
 */
export { brokenJson, fieldsWithWrongValues, wrongValueFor } from "./wrong-values.ts";
