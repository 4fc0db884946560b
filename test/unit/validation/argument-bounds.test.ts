/** validateArguments: the bounds, enums, and the less common shapes a model sends (edges of each rule). */
import type { ParametersSchema } from "@edgeloop/protocol/skill-manifest";
import { parseToolArguments, validateArguments } from "@edgeloop/protocol/validate-arguments";
import { describe, expect, it } from "vitest";

const sized: ParametersSchema = {
  type: "object",
  required: [],
  properties: {
    count: { type: "integer", minimum: 1, maximum: 10 },
    ratio: { type: "number", minimum: 0, maximum: 1 },
  },
};

const error = (r: ReturnType<typeof validateArguments>) => (r.ok ? null : r.error);

describe("validateArguments: minimum and maximum", () => {
  it("refuses a value above maximum, with the bound in the error", () => {
    const r = validateArguments("sized", sized, { count: 11 });
    expect(r).toMatchObject({ ok: false, field: "count" });
    expect(error(r)).toContain("'count' must be <= 10 (got 11)");
    expect(error(validateArguments("sized", sized, { ratio: 1.5 }))).toContain("'ratio' must be <= 1 (got 1.5)");
  });

  it("takes the bounds themselves (both are inclusive)", () => {
    for (const args of [{ count: 1 }, { count: 10 }, { ratio: 0 }, { ratio: 1 }])
      expect(validateArguments("sized", sized, args)).toEqual({ ok: true, value: args });
  });

  it("refuses a value below minimum and reports no maximum problem for it", () => {
    expect(error(validateArguments("sized", sized, { count: 0 }))).toBe(
      "Invalid parameters for 'sized': 'count' must be >= 1 (got 0). Required: []. Optional: [count, ratio].",
    );
  });

  it("applies bounds to array items too", () => {
    const schema: ParametersSchema = {
      type: "object",
      required: [],
      properties: { ports: { type: "array", items: { type: "integer", maximum: 65535 } } },
    };
    const r = validateArguments("scan", schema, { ports: [22, 70000] });
    expect(r).toMatchObject({ ok: false, field: "ports[1]" });
    expect(error(r)).toContain("'ports[1]' must be <= 65535 (got 70000)");
  });
});

describe("validateArguments: types and enums at their edges", () => {
  it("a number must be finite, and the error says which kind of number it got", () => {
    const schema: ParametersSchema = { type: "object", required: [], properties: { x: { type: "number" } } };
    expect(error(validateArguments("t", schema, { x: Number.POSITIVE_INFINITY }))).toContain(
      "'x' must be a number (got number Infinity)",
    );
    const int: ParametersSchema = { type: "object", required: [], properties: { s: { type: "string" } } };
    expect(error(validateArguments("t", int, { s: 3 }))).toContain("'s' must be a string (got integer 3)");
    expect(error(validateArguments("t", int, { s: 3.5 }))).toContain("'s' must be a string (got number 3.5)");
    expect(error(validateArguments("t", int, { s: { a: 1 } }))).toContain("'s' must be a string (got object)");
    expect(error(validateArguments("t", int, { s: true }))).toContain("'s' must be a string (got boolean)");
  });

  it("a long string is shown cut at 40 characters in the error", () => {
    const schema: ParametersSchema = { type: "object", required: [], properties: { n: { type: "integer" } } };
    const long = "x".repeat(41);
    expect(error(validateArguments("t", schema, { n: long }))).toContain(`(got string "${"x".repeat(40)}…")`);
    const edge = "y".repeat(40);
    expect(error(validateArguments("t", schema, { n: edge }))).toContain(`(got string "${edge}")`);
  });

  it("enums of numbers and of objects compare by value, and name non-strings as JSON", () => {
    const schema: ParametersSchema = {
      type: "object",
      required: [],
      properties: {
        level: { type: "integer", enum: [1, 2] },
        box: { type: "object", enum: [{ w: 1 }] },
      },
    };
    expect(validateArguments("t", schema, { level: 2, box: { w: 1 } })).toEqual({
      ok: true,
      value: { level: 2, box: { w: 1 } },
    });
    expect(error(validateArguments("t", schema, { level: 3 }))).toContain("'level' must be one of [1, 2] (got 3)");
    expect(error(validateArguments("t", schema, { box: { w: 2 } }))).toContain(
      `'box' must be one of [{"w":1}] (got {"w":2})`,
    );
  });

  it("an array without an item schema is kept whole; a free-form object too", () => {
    const schema: ParametersSchema = {
      type: "object",
      required: [],
      properties: { list: { type: "array" }, bag: { type: "object" } },
    };
    const args = { list: [1, "a", { b: null }], bag: { deep: { x: [1] } } };
    expect(validateArguments("t", schema, args)).toEqual({ ok: true, value: args });
  });

  it("a bad item inside a nested object marks the whole object as failed", () => {
    const schema: ParametersSchema = {
      type: "object",
      required: [],
      properties: {
        opts: { type: "object", required: [], properties: { n: { type: "integer" } } },
        rows: { type: "array", items: { type: "object", required: ["id"], properties: { id: { type: "string" } } } },
      },
    };
    const r = validateArguments("t", schema, { opts: { n: "1" }, rows: [{ id: "a" }, {}] });
    expect(r).toMatchObject({ ok: false, field: "opts.n" });
    expect(error(r)).toContain("missing 'rows[1].id'");
  });
});

describe("validateArguments: required names and spellings", () => {
  it("a required name without a property schema must be present and passes unchecked", () => {
    const schema: ParametersSchema = { type: "object", required: ["token"], properties: {} };
    expect(validateArguments("t", schema, { token: 7 })).toEqual({ ok: true, value: { token: 7 } });
    for (const token of [undefined, null, ""]) {
      const r = validateArguments("t", schema, token === undefined ? {} : { token });
      expect(r).toEqual({
        ok: false,
        error: "Invalid parameters for 't': missing 'token'. Required: [token]. Optional: [].",
        field: "token",
      });
    }
    const nested: ParametersSchema = {
      type: "object",
      required: [],
      properties: { o: { type: "object", required: ["k"], properties: {} } },
    };
    expect(validateArguments("t", nested, { o: {} })).toMatchObject({ ok: false, field: "o.k" });
  });

  it("an optional empty string is a value, not a missing one", () => {
    const schema: ParametersSchema = {
      type: "object",
      required: [],
      properties: { note: { type: "string", default: "none" } },
    };
    expect(validateArguments("t", schema, { note: "" })).toEqual({ ok: true, value: { note: "" } });
  });

  it("a camelCase schema name takes a snake_case argument, and a schema name given twice keeps its own spelling", () => {
    const schema: ParametersSchema = {
      type: "object",
      required: [],
      properties: { maxCount: { type: "integer" }, dry_run: { type: "boolean" } },
    };
    expect(validateArguments("t", schema, { max_count: 3, dryRun: true })).toEqual({
      ok: true,
      value: { maxCount: 3, dry_run: true },
    });
    expect(validateArguments("t", schema, { max_count: 3, maxCount: 4 })).toEqual({ ok: true, value: { maxCount: 4 } });
    // An alias does not overwrite one taken from an earlier alias.
    expect(validateArguments("t", schema, { dryRun: true, DryRun: false })).toEqual({
      ok: true,
      value: { dry_run: true },
    });
  });
});

describe("parseToolArguments: edges", () => {
  it("a JSON string that is not itself JSON is refused as not an object", () => {
    expect(parseToolArguments(JSON.stringify("just text"))).toEqual({
      ok: false,
      error: "arguments are not valid JSON: expected an object, got string",
    });
  });

  it("an object is copied, not shared with the caller", () => {
    const raw = { a: 1 };
    const parsed = parseToolArguments(raw);
    expect(parsed).toEqual({ ok: true, value: { a: 1 } });
    expect(parsed.ok && parsed.value).not.toBe(raw);
  });

  it("an array given as an object is refused", () => {
    expect(parseToolArguments([1] as unknown as object)).toEqual({
      ok: false,
      error: "arguments are not valid JSON: expected an object, got array",
    });
  });
});
