import { dialogScoreDecimals } from "@deliberate/contracts";

const scale = 10 ** dialogScoreDecimals;

/** A score as reported and compared: three decimals (a weighted mean such as 0.5700000000000001 reads 0.57). */
export function roundScore(value: number): number {
  return Math.round(value * scale) / scale;
}
