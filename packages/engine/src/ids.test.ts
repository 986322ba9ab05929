import { createHash } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createReplayIds, randomIds } from "./ids.ts";

/** A `randomIds` id made at `milliseconds` (its 8 characters of time, then 12 hex). */
const idAt = (prefix: string, milliseconds: number, hex: string) =>
  `${prefix}_${milliseconds.toString(36).padStart(8, "0")}${hex}`;
const hex12 = fc.stringMatching(/^[0-9a-f]{12}$/);
const milliseconds = fc.integer({ min: 0, max: 36 ** 8 - 1 });

describe("replay ids", () => {
  it("are the same for the same seed, scope and draw, and differ between seeds", () => {
    fc.assert(
      fc.property(milliseconds, hex12, hex12, (at, first, second) => {
        fc.pre(first !== second);
        const seed = idAt("rt", at, first);
        const draw = (ids: ReturnType<typeof createReplayIds>) => [ids.next("ses"), ids.next("th"), ids.next("th")];
        expect(draw(createReplayIds(seed))).toEqual(draw(createReplayIds(seed)));
        expect(draw(createReplayIds(seed).scope?.("step") as never)).toEqual(
          draw(createReplayIds(seed).scope?.("step") as never),
        );
        expect(new Set([...draw(createReplayIds(seed)), ...draw(createReplayIds(idAt("rt", at, second)))]).size).toBe(
          6,
        );
      }),
    );
  });

  it("keep a time-ordered seed's time, so a later call's rows sort after an earlier one's", () => {
    fc.assert(
      fc.property(milliseconds, milliseconds, hex12, hex12, (earlier, later, a, b) => {
        fc.pre(earlier < later);
        const first = createReplayIds(idAt("rt", earlier, a)).next("ses");
        const second = createReplayIds(idAt("rt", later, b)).next("ses");
        expect(first).toMatch(/^ses_[0-9a-z]{8}[0-9a-f]{12}$/);
        expect(first.slice(4, 12)).toBe(idAt("rt", earlier, a).slice(3, 11));
        expect(first < second).toBe(true);
        // A scope of the call (a preset's step) keeps the call's time too.
        expect(
          createReplayIds(idAt("rt", earlier, a))
            .scope?.("step 1")
            .next("th")
            .slice(3, 11),
        ).toBe(first.slice(4, 12));
      }),
    );
    expect(createReplayIds(randomIds.next("rt")).next("ses")).toMatch(/^ses_[0-9a-z]{8}[0-9a-f]{12}$/);
  });

  it("are 20 hex characters of the digest when the seed carries no time (e.g. sequential test ids)", () => {
    expect(createReplayIds("rt_1").next("ses")).toMatch(/^ses_[0-9a-f]{20}$/);
    expect(createReplayIds("rt_1").next("ses")).toBe(createReplayIds("rt_1").next("ses"));
  });

  it("are the ids earlier builds drew (a call suspended before an upgrade replays with the same ids)", () => {
    // The digest as it was computed before the one-shot `hash`: a Hash object per id.
    const digest = (seed: string, prefix: string, count: number) =>
      createHash("sha256").update(`${seed}\u0000${prefix}\u0000${count}`).digest("hex");
    fc.assert(
      fc.property(
        milliseconds,
        hex12,
        fc.constantFrom("ses", "th", "inv"),
        fc.integer({ min: 1, max: 5 }),
        (at, hex, prefix, draws) => {
          const seed = idAt("rt", at, hex);
          const ids = createReplayIds(seed);
          for (let count = 1; count <= draws; count += 1)
            expect(ids.next(prefix)).toBe(`${prefix}_${seed.slice(3, 11)}${digest(seed, prefix, count).slice(0, 12)}`);
        },
      ),
    );
    expect(createReplayIds("rt_1").next("ses")).toBe(`ses_${digest("rt_1", "ses", 1).slice(0, 20)}`);
  });
});
