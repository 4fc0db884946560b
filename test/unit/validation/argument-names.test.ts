/** validateArguments and parseToolArguments: how names are matched, and inputs at the edge of the schema. */
import type { ParametersSchema } from "@edgeloop/protocol/skill-manifest";
import { parseToolArguments, validateArguments } from "@edgeloop/protocol/validate-arguments";
import { describe, expect, it } from "vitest";

describe("parseToolArguments: nothing given", () => {
  it("reads missing arguments, undefined or null, as no arguments", () => {
    expect(parseToolArguments(undefined)).toEqual({ ok: true, value: {} });
    expect(parseToolArguments(null)).toEqual({ ok: true, value: {} });
  });
});

describe("validateArguments: names", () => {
  const write: ParametersSchema = {
    type: "object",
    required: ["file_path"],
    properties: { file_path: { type: "string" }, userIdAlt: { type: "string" } },
  };

  it("takes no value through a __proto__ key, even one holding the schema's name", () => {
    const args = JSON.parse('{"__proto__": {"file_path": "/etc/shadow"}, "filePath": "a.txt"}');
    expect(validateArguments("write", write, args)).toEqual({ ok: true, value: { file_path: "a.txt" } });
  });

  it("finds the schema's camelCase name from a name that mixes both spellings", () => {
    expect(validateArguments("write", write, { file_path: "a", user_idAlt: "u" })).toEqual({
      ok: true,
      value: { file_path: "a", userIdAlt: "u" },
    });
  });
});

describe("validateArguments: keywords that do not fit the type", () => {
  it("checks a string as a string even when its schema also lists properties or items", () => {
    const schema: ParametersSchema = {
      type: "object",
      required: ["name"],
      properties: {
        name: {
          type: "string",
          properties: { first: { type: "string" } },
          required: ["first"],
          items: { type: "integer" },
        },
      },
    };
    expect(validateArguments("t", schema, { name: "abc" })).toEqual({ ok: true, value: { name: "abc" } });
  });
});
