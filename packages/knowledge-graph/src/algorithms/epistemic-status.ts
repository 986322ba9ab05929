import type { EpistemicStatus, Validity } from "@deliberate/contracts";

/**
 * How strongly each status is believed. An asserted fact beats a derived one,
 * which beats anything resting on a hypothesis; a hypothesis and a conclusion
 * drawn from one are equally weak.
 */
export const statusStrength: Record<EpistemicStatus, number> = {
  asserted: 3,
  derived: 2,
  hypothetical: 1,
  derived_from_hypothesis: 1,
};

/** True when the status rests on a hypothesis somewhere. */
export function restsOnHypothesis(status: EpistemicStatus): boolean {
  return status === "hypothetical" || status === "derived_from_hypothesis";
}

/** The status of a fact deduced from `premises`: the weakest of theirs, as a derivation (asserted premises give `derived`). */
export function derivedStatus(premises: readonly EpistemicStatus[]): EpistemicStatus {
  return premises.some(restsOnHypothesis) ? "derived_from_hypothesis" : "derived";
}

/** The weakest of several statuses (null for none); among equally weak ones a derivation from a hypothesis is reported. */
export function weakestStatus(statuses: Iterable<EpistemicStatus>): EpistemicStatus | null {
  let weakest: EpistemicStatus | null = null;
  for (const status of statuses) {
    if (
      weakest === null ||
      statusStrength[status] < statusStrength[weakest] ||
      (statusStrength[status] === statusStrength[weakest] && status === "derived_from_hypothesis")
    )
      weakest = status;
  }
  return weakest;
}

/** The validity a believed fact of this status is stored with (`validity` predates the status and stays for readers of it). */
export function validityOfStatus(status: EpistemicStatus): Exclude<Validity, "retracted"> {
  if (status === "asserted") return "asserted";
  if (status === "derived") return "derived";
  return "hypothesized";
}

/** The status of a fact stored before statuses existed, from its validity and derivation. */
export function statusOfValidity(validity: Validity, derived: boolean): EpistemicStatus {
  if (validity === "asserted") return "asserted";
  if (validity === "derived") return "derived";
  return derived ? "derived_from_hypothesis" : "hypothetical";
}
