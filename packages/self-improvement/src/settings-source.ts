import type { ModeSettings, RuntimeSettingsSource } from "@deliberate/engine";
import type { OverrideRecord } from "./records.ts";
import { engineScope } from "./types.ts";

/**
 * The runtime settings source the module hands the engine: the overrides in
 * force (the module's `self_improvement_overrides` table), kept in memory
 * because the engine reads them on every model call. `replace` loads the
 * table's rows: at start (restoring what earlier runs applied), after every
 * change this process makes, and every `syncMs` (changes made by another
 * replica or by the CLI).
 */
export interface OverrideSettingsSource extends RuntimeSettingsSource {
  replace(overrides: readonly OverrideRecord[]): void;
  all(): readonly OverrideRecord[];
}

/** An empty source; `replace` fills it from the overrides table. */
export function createOverrideSettingsSource(): OverrideSettingsSource {
  let rows: readonly OverrideRecord[] = [];
  let byMode = new Map<string, Partial<ModeSettings>>();
  let concurrency: number | undefined;
  return {
    overridesFor: (mode) => byMode.get(mode) ?? {},
    concurrency: () => concurrency,
    replace(overrides) {
      const next = new Map<string, Partial<ModeSettings>>();
      let nextConcurrency: number | undefined;
      for (const override of overrides) {
        if (override.scope === engineScope) {
          if (override.setting === "concurrency") nextConcurrency = override.value;
          continue;
        }
        if (override.setting === "concurrency") continue;
        next.set(override.scope, { ...next.get(override.scope), [override.setting]: override.value });
      }
      rows = [...overrides];
      byMode = next;
      concurrency = nextConcurrency;
    },
    all: () => rows,
  };
}
