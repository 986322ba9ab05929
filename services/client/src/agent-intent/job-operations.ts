import { cancelRequestSchema, cancelResponseSchema, jobViewSchema } from "@deliberate/contracts";
import { DeliberateClientError } from "../errors.ts";
import { validateWith } from "../validation.ts";
import { type JobOperations, pollJob } from "./intent-handles.ts";
import type { IntentTransport } from "./intent-transport.ts";
import type { HostTool } from "./tool-validation.ts";

/** How jobs are followed when a call does not say. */
export interface JobDefaults {
  pollIntervalMs: number;
  waitTimeoutMs: number;
  /** Check decisions against the offered tools unless a call says otherwise. */
  validateByDefault: boolean;
  /** The host's tools, checked against when a wait names none. */
  defaultTools: HostTool[] | undefined;
}

/** `GET /v1/jobs/{id}`, polling it to the end, and `POST /agent_intent_cancel`. */
export function createJobOperations(transport: IntentTransport, defaults: JobDefaults): JobOperations {
  const job: JobOperations["job"] = (jobId, callOptions) =>
    transport.get(`/v1/jobs/${encodeURIComponent(jobId)}`, jobViewSchema, callOptions);
  return {
    job,
    waitForJob(jobId, waitOptions = {}) {
      return pollJob({
        job,
        jobId,
        intervalMs: waitOptions.intervalMs ?? defaults.pollIntervalMs,
        timeoutMs: waitOptions.timeoutMs ?? defaults.waitTimeoutMs,
        signal: waitOptions.signal,
        offered: defaults.validateByDefault ? (waitOptions.offered ?? defaults.defaultTools) : undefined,
      });
    },
    async cancel(target, callOptions) {
      const body = typeof target === "string" ? { correlation_id: target } : target;
      validateWith(cancelRequestSchema, body, "agent_intent_cancel");
      if (!body.correlation_id && !body.job_id) {
        throw new DeliberateClientError({
          code: "INVALID_INPUT",
          message: "Name what to cancel: correlation_id or job_id.",
          issues: [{ field: "correlation_id", message: "send correlation_id or job_id" }],
        });
      }
      return transport.post("/agent_intent_cancel", body, cancelResponseSchema, true, callOptions);
    },
  };
}
