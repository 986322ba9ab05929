import { jsonDepthField, jsonDepthViolation, maxJsonDepth } from "@deliberate/contracts";
import { type JSONRPCMessage, type McpServer, parseJSONRPCMessage, ProtocolErrorCode, STDIO_DEFAULT_MAX_BUFFER_SIZE } from "@modelcontextprotocol/server";
import { serveStdio, StdioServerTransport } from "@modelcontextprotocol/server/stdio";
import type { Logger } from "./logger.ts";

export interface StdioTransportOptions {
  /** Builds the server for the connection (the SDK may build one more for a version probe). */
  createServer: () => McpServer;
  logger: Logger;
  /** Called once when the client goes away (stdin ends) or the transport closes. */
  onClosed: () => void;
  /** Where messages are read and written (default process stdin / stdout; tests pass streams). */
  stdin?: NodeJS.ReadableStream;
  stdout?: NodeJS.WritableStream;
  /** Longest accepted line in bytes (default the SDK's 10 MiB); longer ones are answered -32600 and skipped. */
  maxLineBytes?: number;
}

export interface RunningTransport {
  close(): Promise<void>;
}

/** A JSON-RPC error the transport answers itself, naming what is wrong (`data.issues`). */
interface LineError {
  code: number;
  message: string;
  id: string | number | null;
  issues: Array<{ field: string; message: string }>;
}

/** The request id of a parsed line when it can be read, else null (JSON-RPC's "id could not be determined"). */
function readableId(value: unknown): string | number | null {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return null;
  const id = (value as Record<string, unknown>)["id"];
  return typeof id === "string" || (typeof id === "number" && Number.isSafeInteger(id)) ? id : null;
}

/**
 * One line of stdin as a JSON-RPC message, or the error to answer it with:
 * -32700 when it is not JSON, -32600 when it is not a JSON-RPC message (or
 * nests deeper than the limit), with the id when it can be read.
 */
export function readLine(line: string): { message: JSONRPCMessage } | { error: LineError } {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return { error: { code: ProtocolErrorCode.ParseError, message: `Parse error: the line is not valid JSON (${reason})`, id: null, issues: [{ field: "(message)", message: `not valid JSON: ${reason}` }] } };
  }
  const id = readableId(value);
  const tooDeep = jsonDepthViolation(value);
  if (tooDeep) {
    const field = jsonDepthField(tooDeep);
    return {
      error: {
        code: ProtocolErrorCode.InvalidRequest,
        message: `Invalid input: ${field}: nested deeper than ${maxJsonDepth} levels (the limit); flatten it or send it as a string`,
        id,
        issues: [{ field, message: `nested deeper than ${maxJsonDepth} levels (the limit)` }],
      },
    };
  }
  const problems = envelopeProblems(value);
  if (problems.length === 0) {
    try {
      return { message: parseJSONRPCMessage(value) };
    } catch (error) {
      const reason = (error as { issues?: Array<{ message: string }> }).issues?.[0]?.message ?? "not a JSON-RPC 2.0 message";
      problems.push({ field: "(message)", message: reason });
    }
  }
  const summary = problems.map((problem) => `${problem.field}: ${problem.message}`).join("; ");
  return {
    error: {
      code: ProtocolErrorCode.InvalidRequest,
      message: `Invalid Request: ${summary}. Send one JSON-RPC 2.0 object per line, e.g. {"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
      id,
      issues: problems,
    },
  };
}

const isPlainObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === "object" && !Array.isArray(value);

/** What makes a parsed value not a JSON-RPC 2.0 request, notification or response, field by field. */
function envelopeProblems(value: unknown): Array<{ field: string; message: string }> {
  if (!isPlainObject(value)) {
    return [{ field: "(message)", message: Array.isArray(value) ? "must be one JSON object (batches are not supported)" : "must be a JSON object" }];
  }
  const problems: Array<{ field: string; message: string }> = [];
  if (value["jsonrpc"] !== "2.0") problems.push({ field: "jsonrpc", message: 'must be "2.0"' });
  const id = value["id"];
  const validId = typeof id === "string" || (typeof id === "number" && Number.isInteger(id));
  if ("id" in value && !validId) problems.push({ field: "id", message: "must be a string or an integer" });
  const members = "method" in value ? ["jsonrpc", "id", "method", "params"] : ["jsonrpc", "id", "result", "error"];
  for (const key of Object.keys(value)) if (!members.includes(key)) problems.push({ field: key, message: "is not a JSON-RPC 2.0 member; remove it" });
  if ("method" in value) {
    if (typeof value["method"] !== "string" || value["method"] === "") problems.push({ field: "method", message: "must be a non-empty string" });
    if ("params" in value && !isPlainObject(value["params"])) problems.push({ field: "params", message: "must be an object when present" });
    return problems;
  }
  const hasResult = "result" in value;
  const hasError = "error" in value;
  if (!hasResult && !hasError) return [...problems, { field: "method", message: "is required (or result / error for a response)" }];
  if (!("id" in value)) problems.push({ field: "id", message: "is required in a response" });
  if (hasResult && hasError) problems.push({ field: "result", message: "a response carries result or error, not both" });
  if (hasResult && !isPlainObject(value["result"])) problems.push({ field: "result", message: "must be an object" });
  if (hasError) {
    const error = value["error"];
    if (!isPlainObject(error) || !Number.isInteger(error["code"]) || typeof error["message"] !== "string") {
      problems.push({ field: "error", message: "must be an object with an integer code and a string message" });
    }
  }
  return problems;
}

/**
 * The SDK's stdio transport with its reading replaced: every line gets an
 * answer. The SDK silently skips lines that are not JSON and reports invalid
 * envelopes only to its error hook, so a client waiting on them would wait
 * forever; here they are answered -32700 / -32600 as the HTTP transport does.
 * It also reports when it closes (stdin ended or closed).
 */
class AnsweringStdioServerTransport extends StdioServerTransport {
  private closedOnce = false;
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** Set while skipping the rest of an over-long line. */
  private discarding = false;

  constructor(
    private readonly options: { onClosed: () => void; logger: Logger; maxLineBytes: number; stdin?: NodeJS.ReadableStream; stdout?: NodeJS.WritableStream },
  ) {
    super(options.stdin as never, options.stdout as never);
    this._ondata = (chunk: Buffer) => this.receive(chunk);
  }

  private receive(chunk: Buffer): void {
    let rest = chunk;
    for (let newline = rest.indexOf(10); newline !== -1; newline = rest.indexOf(10)) {
      const head = rest.subarray(0, newline);
      rest = rest.subarray(newline + 1);
      if (this.discarding) {
        this.discarding = false;
        this.pending = [];
        this.pendingBytes = 0;
        continue;
      }
      const line = this.pendingBytes === 0 ? head : Buffer.concat([...this.pending, head]);
      this.pending = [];
      this.pendingBytes = 0;
      if (line.length > this.options.maxLineBytes) this.answerTooLong();
      else this.handle(line.toString("utf8").replace(/\r$/, ""));
    }
    if (rest.length === 0 || this.discarding) return;
    this.pending.push(rest);
    this.pendingBytes += rest.length;
    if (this.pendingBytes > this.options.maxLineBytes) {
      this.pending = [];
      this.pendingBytes = 0;
      this.discarding = true;
      this.answerTooLong();
    }
  }

  private answerTooLong(): void {
    const limit = this.options.maxLineBytes;
    this.answer({
      code: ProtocolErrorCode.InvalidRequest,
      message: `Invalid Request: the message is longer than ${limit} bytes (the limit); it was skipped`,
      id: null,
      issues: [{ field: "(message)", message: `longer than ${limit} bytes` }],
    });
  }

  private handle(line: string): void {
    if (line.trim() === "") return;
    const read = readLine(line);
    if ("error" in read) {
      this.answer(read.error);
      return;
    }
    try {
      this.onmessage?.(read.message);
    } catch (error) {
      this.onerror?.(error instanceof Error ? error : new Error(String(error)));
    }
  }

  private answer(error: LineError): void {
    this.options.logger.debug("stdio message refused", { code: error.code, id: error.id, detail: error.message });
    this.send({ jsonrpc: "2.0", id: error.id, error: { code: error.code, message: error.message, data: { code: "INVALID_INPUT", issues: error.issues } } } as unknown as JSONRPCMessage).catch(
      (sendError: unknown) => this.options.logger.warn("could not answer a refused stdio message", { error: sendError }),
    );
  }

  override async close(): Promise<void> {
    await super.close();
    this.pending = [];
    this.pendingBytes = 0;
    if (this.closedOnce) return;
    this.closedOnce = true;
    this.options.onClosed();
  }
}

/**
 * Serves MCP over stdin/stdout with the SDK's `serveStdio` (which answers both
 * the 2025 `initialize` handshake and 2026-07-28 clients). Stdout carries
 * JSON-RPC only; everything else goes to the logger (stderr). Every line read
 * is answered: lines that are not JSON get -32700, lines that are not JSON-RPC
 * messages (or nest deeper than the limit) get -32600 with their id when readable.
 */
export function startStdioTransport(options: StdioTransportOptions): RunningTransport {
  const transport = new AnsweringStdioServerTransport({
    onClosed: options.onClosed,
    logger: options.logger,
    maxLineBytes: options.maxLineBytes ?? STDIO_DEFAULT_MAX_BUFFER_SIZE,
    ...(options.stdin ? { stdin: options.stdin } : {}),
    ...(options.stdout ? { stdout: options.stdout } : {}),
  });
  const handle = serveStdio(() => options.createServer(), {
    transport,
    onerror: (error) => options.logger.warn("stdio transport error", { error }),
  });
  return { close: () => handle.close() };
}
