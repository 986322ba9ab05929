/** Tokens of a text at four characters a token (what budgets use when a provider reports none). */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}
