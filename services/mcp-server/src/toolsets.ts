import { ConfigError } from "@deliberate/base";
import { submitTool, type ToolDefinition } from "@deliberate/contracts";

/**
 * The toolsets served when `DELIBERATE_TOOLSETS` is unset: `core` (the
 * everyday methods, decision and evidence, and presets that chain the rest).
 * Every other tool costs context in every conversation whether used or not;
 * see the README for the measured sizes.
 */
export const defaultToolsets: readonly string[] = ["core"];

/** Serves every tool. */
export const allToolsets = "all";

/** What selecting tools needs of the engine: its tools and their toolsets. */
export interface ToolsetSource {
  readonly tools: readonly ToolDefinition[];
  readonly toolsets: ReadonlyMap<string, readonly string[]>;
}

/**
 * The names of the tools the requested toolsets serve. `reasoning_submit`
 * (resuming a host-executed call) comes with any tool that uses a model.
 *
 * @throws ConfigError naming DELIBERATE_TOOLSETS and the toolsets there are, for an unknown name.
 */
export function selectTools(
  engine: ToolsetSource,
  requested: readonly string[] = defaultToolsets,
): ReadonlySet<string> {
  if (requested.includes(allToolsets)) return new Set(engine.tools.map((tool) => tool.name));
  const unknown = requested.filter((name) => !engine.toolsets.has(name));
  if (unknown.length > 0) {
    throw new ConfigError(
      `DELIBERATE_TOOLSETS names unknown toolset${unknown.length > 1 ? "s" : ""} ${unknown.map((name) => `"${name}"`).join(", ")}. ` +
        `Available: ${[...engine.toolsets.keys(), allToolsets].join(", ")} (comma-separated; default ${defaultToolsets.join(",")}).`,
      ["DELIBERATE_TOOLSETS"],
    );
  }
  const selected = new Set(requested.flatMap((name) => engine.toolsets.get(name) ?? []));
  if (engine.tools.some((tool) => selected.has(tool.name) && tool.usesModel)) selected.add(submitTool.name);
  return selected;
}

/** One line per toolset with its tools, for `--print-config` and the README. */
export function describeToolsets(engine: ToolsetSource): string[] {
  return [...engine.toolsets].map(
    ([name, tools]) => `${name}${defaultToolsets.includes(name) ? " (default)" : ""}: ${tools.join(", ")}`,
  );
}
