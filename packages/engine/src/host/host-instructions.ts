/** Short instructions the calling model can act on without reading any docs. */
export function hostInstructions(promptCount: number): string {
  return [
    `No server-side model is configured, so you (the calling agent) answer ${promptCount === 1 ? "this prompt" : `these ${promptCount} prompts`}.`,
    "For each prompt: follow its `system` text as your instructions and answer its `user` text with a JSON object that matches its `schema` exactly.",
    "Then call reasoning_submit with { resume_token, answers: [{ prompt_id, answer }] } (answer every prompt).",
    "The result is the tool's final result or the next step's prompts.",
  ].join(" ");
}
