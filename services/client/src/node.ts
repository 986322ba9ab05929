export { createFileOutbox } from "./node/file-outbox.ts";
export type { FileOutboxOptions } from "./node/file-outbox.ts";
