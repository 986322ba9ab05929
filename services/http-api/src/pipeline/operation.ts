import type { z } from "zod";

/** A named schema: becomes `#/components/schemas/<name>`. */
export interface NamedSchema {
  name: string;
  schema: z.ZodType;
}

/** One endpoint as data: what /openapi.json says of it, and which checks it skips (`public`, `anyHost`). */
export interface Operation {
  method: "get" | "post";
  /** Hono path; `:param` segments become OpenAPI path parameters. */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tags: readonly string[];
  /** Reachable without the bearer token (health, docs). */
  public?: boolean;
  /** Answered whatever the Host and Origin (health probes): no 403. */
  anyHost?: boolean;
  request?: NamedSchema & { example?: unknown };
  /** The success response (200 unless `status` says otherwise). */
  response: { status?: number; description: string; body?: NamedSchema; contentType?: string };
  /** Error statuses this endpoint can answer with (the ErrorResponse body). */
  errors?: readonly number[];
  /** Also streams progress as Server-Sent Events when asked with `Accept: text/event-stream`. */
  streams?: boolean;
  /** Described path parameters. */
  parameters?: Readonly<Record<string, string>>;
  /** Query parameters: each field of the object is one (its description and JSON Schema are published). */
  query?: z.ZodObject;
}
