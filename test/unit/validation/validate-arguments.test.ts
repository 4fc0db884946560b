import type { ParametersSchema } from "@edgeloop/protocol/skill-manifest";
import { parseToolArguments, validateArguments } from "@edgeloop/protocol/validate-arguments";
import { describe, expect, it } from "vitest";

const read: ParametersSchema = {
  type: "object",
  required: ["path"],
  properties: {
    path: { type: "string" },
    offset: { type: "integer", default: 0, minimum: 0 },
    limit: { type: "integer", default: 200 },
  },
};

const generateImage: ParametersSchema = {
  type: "object",
  required: ["prompt"],
  properties: {
    prompt: { type: "string" },
    guidance_scale: { type: "number", default: 3.5 },
    global: { type: "boolean", default: false },
    format: { type: "string", enum: ["png", "jpeg"], default: "png" },
  },
};

describe("parseToolArguments", () => {
  it("parses a JSON object", () => {
    expect(parseToolArguments('{"path": "a"}')).toEqual({ ok: true, value: { path: "a" } });
  });
  it("reads empty, missing and null arguments as {}", () => {
    for (const raw of ["", "  ", undefined, null, "null"])
      expect(parseToolArguments(raw)).toEqual({ ok: true, value: {} });
  });
  it("accepts an object (providers that send arguments as an object)", () => {
    expect(parseToolArguments({ path: "a" })).toEqual({ ok: true, value: { path: "a" } });
  });
  it("unwraps double-encoded JSON", () => {
    expect(parseToolArguments(JSON.stringify('{"path":"a"}'))).toEqual({ ok: true, value: { path: "a" } });
  });
  it("rejects text that is not JSON, and JSON that is not an object", () => {
    const bad = parseToolArguments('{"path": ');
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.error).toMatch(/^arguments are not valid JSON: /);
    expect(parseToolArguments("[1,2]")).toEqual({
      ok: false,
      error: "arguments are not valid JSON: expected an object, got array",
    });
    expect(parseToolArguments("42")).toEqual({
      ok: false,
      error: "arguments are not valid JSON: expected an object, got number",
    });
  });
});

describe("validateArguments", () => {
  it("missing required parameter, with the required and optional lists", () => {
    expect(validateArguments("read", read, {})).toEqual({
      ok: false,
      error: "Invalid parameters for 'read': missing 'path'. Required: [path]. Optional: [offset, limit].",
      field: "path",
    });
  });

  it("null and empty string count as missing for required parameters", () => {
    expect(validateArguments("read", read, { path: null }).ok).toBe(false);
    expect(validateArguments("read", read, { path: "" }).ok).toBe(false);
  });

  it("no bool→int coercion, with the error text format", () => {
    expect(validateArguments("read", read, { path: "a", limit: true })).toEqual({
      ok: false,
      error:
        "Invalid parameters for 'read': 'limit' must be an integer (got boolean). Required: [path]. Optional: [offset, limit].",
      field: "limit",
    });
  });

  it("no string→number coercion; integer must be whole", () => {
    const s = validateArguments("read", read, { path: "a", limit: "10" });
    expect(s.ok === false && s.error).toContain(`'limit' must be an integer (got string "10")`);
    const f = validateArguments("read", read, { path: "a", limit: 1.5 });
    expect(f.ok === false && f.error).toContain("'limit' must be an integer (got number 1.5)");
    expect(validateArguments("read", read, { path: "a", limit: 10.0 }).ok).toBe(true);
  });

  it("int→float is allowed; bool is not a number, number is not a bool", () => {
    expect(validateArguments("generate_image", generateImage, { prompt: "cat", guidance_scale: 4 })).toEqual({
      ok: true,
      value: { prompt: "cat", guidance_scale: 4, global: false, format: "png" },
    });
    expect(validateArguments("generate_image", generateImage, { prompt: "cat", guidance_scale: false }).ok).toBe(false);
    expect(validateArguments("generate_image", generateImage, { prompt: "cat", global: 1 }).ok).toBe(false);
  });

  it("enums", () => {
    const r = validateArguments("generate_image", generateImage, { prompt: "cat", format: "gif" });
    expect(r).toMatchObject({ ok: false, field: "format" });
    expect(r.ok === false && r.error).toContain(`'format' must be one of [png, jpeg] (got "gif")`);
    expect(validateArguments("generate_image", generateImage, { prompt: "cat", format: "jpeg" }).ok).toBe(true);
  });

  it("minimum and maximum", () => {
    const r = validateArguments("read", read, { path: "a", offset: -1 });
    expect(r.ok === false && r.error).toContain("'offset' must be >= 0 (got -1)");
  });

  it("unknown keys are dropped and defaults injected, in schema order", () => {
    const r = validateArguments("read", read, { verbose: true, path: "a" });
    expect(r).toEqual({ ok: true, value: { path: "a", offset: 0, limit: 200 } });
    expect(r.ok && Object.keys(r.value)).toEqual(["path", "offset", "limit"]);
  });

  it("null on an optional parameter reads as absent (default applies)", () => {
    expect(validateArguments("read", read, { path: "a", limit: null })).toEqual({
      ok: true,
      value: { path: "a", offset: 0, limit: 200 },
    });
  });

  it("fills a default: web_search gets max_results 5", () => {
    const webSearch: ParametersSchema = {
      type: "object",
      required: ["query"],
      properties: { query: { type: "string" }, max_results: { type: "integer", default: 5 } },
    };
    expect(validateArguments("web_search", webSearch, { query: "python async" })).toEqual({
      ok: true,
      value: { query: "python async", max_results: 5 },
    });
  });

  it("camelCase and snake_case both accepted; the schema's spelling wins when both are given", () => {
    const write: ParametersSchema = {
      type: "object",
      required: ["file_path", "content"],
      properties: {
        file_path: { type: "string" },
        content: { type: "string" },
        createDirs: { type: "boolean", default: false },
      },
    };
    expect(validateArguments("write", write, { filePath: "a.txt", content: "x", create_dirs: true })).toEqual({
      ok: true,
      value: { file_path: "a.txt", content: "x", createDirs: true },
    });
    expect(validateArguments("write", write, { filePath: "camel.txt", file_path: "snake.txt", content: "x" })).toEqual({
      ok: true,
      value: { file_path: "snake.txt", content: "x", createDirs: false },
    });
  });

  it("nested objects: types, required, unknown keys, defaults, and field paths", () => {
    const schema: ParametersSchema = {
      type: "object",
      required: ["options"],
      properties: {
        options: {
          type: "object",
          required: ["depth"],
          properties: { depth: { type: "integer" }, follow: { type: "boolean", default: true } },
        },
        meta: { type: "object" },
      },
    };
    expect(validateArguments("walk", schema, { options: { depth: 2, extra: 1 }, meta: { anything: [1] } })).toEqual({
      ok: true,
      value: { options: { depth: 2, follow: true }, meta: { anything: [1] } },
    });
    const missing = validateArguments("walk", schema, { options: {} });
    expect(missing).toMatchObject({ ok: false, field: "options.depth" });
    expect(missing.ok === false && missing.error).toContain("missing 'options.depth'");
    const wrong = validateArguments("walk", schema, { options: { depth: "2" } });
    expect(wrong.ok === false && wrong.error).toContain(`'options.depth' must be an integer (got string "2")`);
    const notObject = validateArguments("walk", schema, { options: [1] });
    expect(notObject.ok === false && notObject.error).toContain("'options' must be an object (got array)");
  });

  it("arrays: item types checked with their index, nested items normalised", () => {
    const schema: ParametersSchema = {
      type: "object",
      required: ["paths"],
      properties: {
        paths: { type: "array", items: { type: "string" } },
        edits: {
          type: "array",
          items: {
            type: "object",
            required: ["old_string"],
            properties: { old_string: { type: "string" }, new_string: { type: "string", default: "" } },
          },
        },
      },
    };
    expect(validateArguments("multi", schema, { paths: ["a", "b"], edits: [{ oldString: "x" }] })).toEqual({
      ok: true,
      value: { paths: ["a", "b"], edits: [{ old_string: "x", new_string: "" }] },
    });
    const bad = validateArguments("multi", schema, { paths: ["a", 2] });
    expect(bad).toMatchObject({ ok: false, field: "paths[1]" });
    expect(bad.ok === false && bad.error).toContain("'paths[1]' must be a string (got integer 2)");
    expect(validateArguments("multi", schema, { paths: "a" }).ok).toBe(false);
  });

  it("reports every problem at once, field = the first", () => {
    const r = validateArguments("read", read, { limit: "x" });
    expect(r).toEqual({
      ok: false,
      error: `Invalid parameters for 'read': missing 'path'; 'limit' must be an integer (got string "x"). Required: [path]. Optional: [offset, limit].`,
      field: "path",
    });
  });

  it("a tool without parameters takes anything and returns {}", () => {
    expect(validateArguments("system_stats", { type: "object", properties: {}, required: [] }, { junk: 1 })).toEqual({
      ok: true,
      value: {},
    });
  });

  it("defaults are copies, not the schema's own objects", () => {
    const schema: ParametersSchema = {
      type: "object",
      required: [],
      properties: { tags: { type: "array", default: ["a"] } },
    };
    const r = validateArguments("t", schema, {});
    if (!r.ok) throw new Error(r.error);
    (r.value.tags as string[]).push("b");
    expect(schema.properties.tags!.default).toEqual(["a"]);
  });
});
