export { DeliberateError, errorCodes, toDeliberateError } from "./errors.ts";
export type { DeliberateErrorOptions, ErrorBody, ErrorCode, FieldIssue } from "./errors.ts";
export { ConfigError, readList } from "./config-error.ts";
