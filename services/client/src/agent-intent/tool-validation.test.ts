import { describe, expect, it } from "vitest";
import { isClientError } from "../errors.ts";
import { type HostTool, validateIntent } from "./tool-validation.ts";

const search: HostTool = {
  name: "context.fts_search",
  input_schema: {
    type: "object",
    properties: { query: { type: "string", minLength: 1 } },
    required: ["query"],
    additionalProperties: false,
  },
};
const read: HostTool = { name: "fs.read_file" };

function failure(run: () => void) {
  try {
    run();
  } catch (error) {
    if (isClientError(error, "INTENT_VALIDATION")) return error;
    throw error;
  }
  throw new Error("expected INTENT_VALIDATION");
}

describe("validateIntent", () => {
  it("passes a finish, a valid call, a tool with no schema, and anything when nothing was offered", () => {
    expect(() => validateIntent({ finish: true, tool_name: null, tool_args: {} }, [search])).not.toThrow();
    expect(() =>
      validateIntent({ finish: false, tool_name: "context.fts_search", tool_args: { query: "auth" } }, [search, read]),
    ).not.toThrow();
    expect(() =>
      validateIntent({ finish: false, tool_name: "fs.read_file", tool_args: { anything: 1 } }, [search, read]),
    ).not.toThrow();
    expect(() => validateIntent({ finish: false, tool_name: "shell.exec", tool_args: {} }, undefined)).not.toThrow();
  });

  it("refuses a tool that was not offered, naming it", () => {
    const error = failure(() =>
      validateIntent({ finish: false, tool_name: "shell.exec", tool_args: { command: "rm -rf /" } }, [search, read]),
    );
    expect(error.issues).toEqual([{ field: "tool_name", message: "'shell.exec' was not offered" }]);
    expect(error.message).toContain("context.fts_search, fs.read_file");
  });

  it("refuses arguments that fail the offered tool's schema, naming each field", () => {
    const missing = failure(() =>
      validateIntent({ finish: false, tool_name: "context.fts_search", tool_args: {} }, [search]),
    );
    expect(missing.issues.map((issue) => issue.field)).toEqual(["tool_args.query"]);
    const extra = failure(() =>
      validateIntent({ finish: false, tool_name: "context.fts_search", tool_args: { query: "x", limit: 3 } }, [search]),
    );
    // An unexpected key is reported on the object or on the key, depending on the zod version.
    expect(extra.issues).toHaveLength(1);
    expect(extra.issues[0]?.field.startsWith("tool_args")).toBe(true);
    expect(JSON.stringify(extra.issues)).toContain("limit");
    const empty = failure(() =>
      validateIntent({ finish: false, tool_name: "context.fts_search", tool_args: { query: "" } }, [search]),
    );
    expect(empty.issues.map((issue) => issue.field)).toEqual(["tool_args.query"]);
  });
});
