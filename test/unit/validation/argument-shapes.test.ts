/** validateArguments and parseToolArguments: the exact wording and shape of what they return for odd input. */
import type { ParametersSchema } from "@edgeloop/protocol/skill-manifest";
import { parseToolArguments, validateArguments } from "@edgeloop/protocol/validate-arguments";
import { describe, expect, it } from "vitest";

describe("validateArguments: result shape", () => {
  it("an array item that is null is reported as null, not as an object", () => {
    const schema: ParametersSchema = {
      type: "object",
      required: [],
      properties: { rows: { type: "array", items: { type: "object", properties: { id: { type: "string" } } } } },
    };
    const r = validateArguments("t", schema, { rows: [null] });
    expect(r).toMatchObject({ ok: false, field: "rows[0]" });
    expect(r.ok === false && r.error).toContain("'rows[0]' must be an object (got null)");
  });

  it("lists every required name in the error", () => {
    const schema: ParametersSchema = {
      type: "object",
      required: ["a", "b"],
      properties: { a: { type: "string" }, b: { type: "string" }, c: { type: "string" }, d: { type: "string" } },
    };
    expect(validateArguments("t", schema, {})).toEqual({
      ok: false,
      error: "Invalid parameters for 't': missing 'a'; missing 'b'. Required: [a, b]. Optional: [c, d].",
      field: "a",
    });
  });

  it("an optional parameter without a default stays out of the result", () => {
    const schema: ParametersSchema = { type: "object", required: [], properties: { x: { type: "string" } } };
    const r = validateArguments("t", schema, {});
    expect(r.ok && Object.keys(r.value)).toEqual([]);
  });

  it("a schema or nested object without a required list requires nothing", () => {
    const schema = {
      type: "object",
      properties: { o: { type: "object", properties: { n: { type: "integer" } } } },
    } as unknown as ParametersSchema;
    expect(validateArguments("t", schema, { o: {} })).toEqual({ ok: true, value: { o: {} } });
    expect(validateArguments("t", schema, { o: { n: "x" } })).toMatchObject({
      ok: false,
      error: "Invalid parameters for 't': 'o.n' must be an integer (got string \"x\"). Required: []. Optional: [o].",
    });
  });

  it("when the schema itself has both spellings, each argument fills its own", () => {
    const schema: ParametersSchema = {
      type: "object",
      required: [],
      properties: { max_count: { type: "integer" }, maxCount: { type: "integer" } },
    };
    const r = validateArguments("t", schema, { maxCount: 2 });
    expect(r.ok && r.value).toEqual({ maxCount: 2 });
    expect(r.ok && Object.keys(r.value)).toEqual(["maxCount"]);
  });
});

describe("parseToolArguments: error wording", () => {
  it("text that is not JSON is reported with the parser's reason, not as a wrong type", () => {
    const r = parseToolArguments('{"path": ');
    expect(r.ok).toBe(false);
    expect(r.ok === false && r.error).not.toContain("expected an object");
  });

  it("a one-element array is an array, not its element", () => {
    expect(parseToolArguments("[1]")).toEqual({
      ok: false,
      error: "arguments are not valid JSON: expected an object, got array",
    });
  });
});
