import type { HostPromptForm } from "../engine/options.ts";

/**
 * Short instructions the calling model can act on without reading any docs. A later compact step of a call
 * (`later`) points back to the first step's, which the host holds as it holds that step's blocks.
 */
export function hostInstructions(promptCount: number, form: HostPromptForm, later = false): string {
  const which = promptCount === 1 ? "this prompt" : `these ${promptCount} prompts`;
  if (form === "compact" && later) {
    return `Answer ${which} as this call's first step says (blocks by id; resend: true repeats them all), then call reasoning_submit { resume_token, answers: [{ prompt_id, answer }] }.`;
  }
  if (form === "full") {
    return [
      `No server-side model is configured, so you (the calling agent) answer ${which}.`,
      "For each prompt: follow its `system` text as your instructions and answer its `user` text with a JSON object that matches its `schema` exactly.",
      "Then call reasoning_submit with { resume_token, answers: [{ prompt_id, answer }] } (answer every prompt).",
      "The result is the tool's final result or the next step's prompts.",
    ].join(" ");
  }
  return [
    `No server-side model is configured: you (the calling agent) answer ${which}.`,
    "Per prompt: system = context[system_ref]; user = context[user_refs] joined by blank lines; answer = a JSON object matching schemas[schema_ref].",
    "Each block comes once per call (one not here came in an earlier step; resend: true repeats all).",
    "Then call reasoning_submit { resume_token, answers: [{ prompt_id, answer }] } (every prompt); it returns the result or the next step.",
  ].join(" ");
}
