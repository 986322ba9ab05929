import { describe, expect, it } from "vitest";
import { notesModule } from "../test/fixtures/notes-module.ts";
import { composeModules, defineModule, type ModulePrompt, splitPromptList } from "./index.ts";

const toolOfNotes = notesModule.tools?.[0]?.definition.name ?? "";

function prompt(name: string, tool = toolOfNotes): ModulePrompt {
  return { name, title: name, description: name, tool, arguments: [], call: () => ({}), followUp: "" };
}

describe("prompts and toolsets in a composition", () => {
  it("collects the modules' prompts and places every tool in one toolset (unlisted ones under the module's name)", () => {
    const withToolsets = defineModule({
      ...notesModule,
      prompts: [prompt("take-note")],
      toolsets: { core: [toolOfNotes] },
    });
    const composed = composeModules([withToolsets]);
    expect(composed.prompts.map((item) => item.name)).toEqual(["take-note"]);
    expect(composed.toolsets.get("core")).toEqual([toolOfNotes]);
    const rest = (notesModule.tools ?? [])
      .map((handler) => handler.definition.name)
      .filter((name) => name !== toolOfNotes);
    if (rest.length > 0) expect(composed.toolsets.get(notesModule.name)).toEqual(rest);
    const plain = composeModules([notesModule]);
    expect(plain.toolsets.get(notesModule.name)).toEqual(
      (notesModule.tools ?? []).map((handler) => handler.definition.name),
    );
  });

  it("refuses a prompt leading to an unknown tool, a prompt registered twice, and a toolset naming another module's tool", () => {
    expect(() => composeModules([defineModule({ ...notesModule, prompts: [prompt("x", "no_such_tool")] })])).toThrow(
      /Prompt 'x' leads to tool 'no_such_tool'/,
    );
    const twice = defineModule({ name: "other", prompts: [prompt("take-note")] });
    expect(() => composeModules([defineModule({ ...notesModule, prompts: [prompt("take-note")] }), twice])).toThrow(
      /Prompt 'take-note' of module other is already registered/,
    );
    expect(() => composeModules([defineModule({ ...notesModule, toolsets: { core: ["someone_elses"] } })])).toThrow(
      /lists tool 'someone_elses', which the module does not register/,
    );
    expect(() => composeModules([defineModule({ ...notesModule, toolsets: { Core: [toolOfNotes] } })])).toThrow(
      /lower-case kebab-case/,
    );
    expect(() =>
      composeModules([defineModule({ ...notesModule, toolsets: { a: [toolOfNotes], b: [toolOfNotes] } })]),
    ).toThrow(/listed in two toolsets/);
  });

  it("splits list arguments one per line, or by commas on one line, dropping bullets and blanks", () => {
    expect(splitPromptList("a, b ,, c")).toEqual(["a", "b", "c"]);
    expect(splitPromptList("- first, with a comma\n2. second\n\n* third")).toEqual([
      "first, with a comma",
      "second",
      "third",
    ]);
    expect(splitPromptList("  ")).toEqual([]);
  });
});

describe("splitPromptList", () => {
  // The pattern spells the bullet as \u2022 so the server bundle stays ASCII (read as a one-byte string).
  it("drops list markers: dashes, stars, bullets and numbers", () => {
    expect(splitPromptList("- SQS\n* Kafka\n\u2022 NATS\n2. Redis\n3) Pulsar")).toEqual([
      "SQS",
      "Kafka",
      "NATS",
      "Redis",
      "Pulsar",
    ]);
  });
});
