/**
 * How an MCP tool's `inputSchema` is cut down to the subset the argument validator checks
 * (protocol/mcp-input-schema.ts): what is kept, and every keyword or property left out listed with its
 * reason, nothing lost silently. Each case is the whole answer, compared strictly (a key set to
 * `undefined` is not a key left out).
 */

import { cutInputSchema } from "@edgeloop/protocol/mcp-input-schema";
import { describe, expect, it } from "vitest";

const NOT_SUPPORTED = (path: string, key: string) =>
  `${path}: '${key}' not supported by the validator (checked by the server)`;
/** The parameter list of one optional property, and what was dropped. */
const one = (property: unknown, extra: Record<string, unknown> = {}) =>
  cutInputSchema({ type: "object", properties: { p: property }, ...extra });
const kept = (property: unknown, extra: Record<string, unknown> = {}) => {
  const cut = one(property, extra);
  return { p: cut.parameters.properties.p, dropped: cut.dropped };
};
const EMPTY = { type: "object", properties: {}, required: [] };

describe("the root", () => {
  it("must be an object schema", () => {
    for (const input of [null, [], "x", 1, [{ type: "object" }]])
      expect(cutInputSchema(input), JSON.stringify(input)).toStrictEqual({
        parameters: EMPTY,
        dropped: ["(root): not an object schema"],
      });
    expect(cutInputSchema({})).toStrictEqual({ parameters: EMPTY, dropped: [] });
    expect(cutInputSchema({ type: "array" })).toStrictEqual({
      parameters: EMPTY,
      dropped: ['(root): type "array" is not "object"'],
    });
    expect(cutInputSchema({ type: ["object", "null"] }).dropped).toStrictEqual([
      '(root): type ["object","null"] is not "object"',
    ]);
  });

  it("lists every keyword it does not keep, an anyOf of required sets among them", () => {
    const cut = cutInputSchema({
      type: "object",
      title: "Args",
      description: "the tool's arguments",
      properties: { a: { type: "string" }, b: { type: "string" } },
      anyOf: [{ required: ["a"] }, { required: ["b"] }],
      enum: [{}],
      minimum: 1,
    });
    expect(cut).toStrictEqual({
      parameters: { type: "object", properties: { a: { type: "string" }, b: { type: "string" } }, required: [] },
      dropped: [NOT_SUPPORTED("(root)", "anyOf"), NOT_SUPPORTED("(root)", "enum"), NOT_SUPPORTED("(root)", "minimum")],
    });
  });

  it("says when its own $ref cannot be followed", () => {
    expect(cutInputSchema({ $ref: "#/$defs/Missing", type: "object" })).toStrictEqual({
      parameters: EMPTY,
      dropped: ["(root): $ref #/$defs/Missing cannot be followed"],
    });
  });

  it("takes its properties through a $ref, and keeps only the names of required that are strings", () => {
    const cut = cutInputSchema({
      $ref: "#/definitions/Args",
      definitions: { Args: { type: "object", properties: { a: { type: "string" } }, required: ["a", 1, null] } },
    });
    expect(cut).toStrictEqual({
      parameters: { type: "object", properties: { a: { type: "string" } }, required: ["a"] },
      dropped: [],
    });
  });

  it("says why additionalProperties: false needs no check, and lists any other value", () => {
    expect(cutInputSchema({ type: "object", additionalProperties: false }).dropped).toStrictEqual([
      "(root): additionalProperties: false (unknown arguments are dropped before the call anyway)",
    ]);
    for (const value of [true, {}])
      expect(cutInputSchema({ type: "object", additionalProperties: value }).dropped).toStrictEqual([
        NOT_SUPPORTED("(root)", "additionalProperties"),
      ]);
  });
});

describe("a property", () => {
  it("keeps what the validator checks, and lists no annotation", () => {
    const property = {
      type: "integer",
      description: "how many",
      default: 0,
      enum: [1, 2, null],
      minimum: 0,
      maximum: 10,
      title: "Count",
      $schema: "s",
      $id: "i",
      $comment: "c",
      examples: [1],
      deprecated: false,
      readOnly: false,
      writeOnly: false,
      $defs: {},
      definitions: {},
    };
    expect(kept(property)).toStrictEqual({
      p: { type: "integer", description: "how many", default: 0, enum: [1, 2], minimum: 0, maximum: 10 },
      dropped: [],
    });
  });

  it("keeps a default that is falsy, and leaves out one that is absent", () => {
    expect(kept({ type: "boolean", default: false }).p).toStrictEqual({ type: "boolean", default: false });
    expect(kept({ type: "boolean" }).p).toStrictEqual({ type: "boolean" });
  });

  it("cuts a description to 4096 characters", () => {
    expect(kept({ type: "string", description: "d".repeat(5000) }).p).toStrictEqual({
      type: "string",
      description: "d".repeat(4096),
    });
    expect(kept({ type: "string", description: 7 }).p).toStrictEqual({ type: "string" });
  });

  it("keeps bounds on numbers only, and says when a string's are ignored", () => {
    expect(kept({ type: "number", minimum: -1.5 }).p).toStrictEqual({ type: "number", minimum: -1.5 });
    expect(kept({ type: "number", maximum: 2 }).p).toStrictEqual({ type: "number", maximum: 2 });
    expect(kept({ type: "integer", minimum: "0", maximum: "9" }).p).toStrictEqual({ type: "integer" });
    const ignored = "p: minimum/maximum on a non-number ignored";
    expect(kept({ type: "string", minimum: 1 })).toStrictEqual({ p: { type: "string" }, dropped: [ignored] });
    expect(kept({ type: "string", maximum: 1 })).toStrictEqual({ p: { type: "string" }, dropped: [ignored] });
    expect(kept({ const: "a", maximum: 1 })).toStrictEqual({ p: { type: "string", enum: ["a"] }, dropped: [ignored] });
    expect(kept({ type: "boolean", minimum: 1 })).toStrictEqual({ p: { type: "boolean" }, dropped: [] });
    expect(kept({ type: "string" }).dropped).toStrictEqual([]);
  });

  it("takes an enum without its nulls, a const as a one-value enum, the enum first", () => {
    expect(kept({ type: "string", enum: ["a", null] }).p).toStrictEqual({ type: "string", enum: ["a"] });
    expect(kept({ type: "string", enum: [null] }).p).toStrictEqual({ type: "string" });
    expect(kept({ type: "string", enum: [], const: "c" }).p).toStrictEqual({ type: "string", enum: ["c"] });
    expect(kept({ type: "string", enum: ["e"], const: "c" }).p).toStrictEqual({ type: "string", enum: ["e"] });
    expect(kept({ type: "string", enum: "e" }).p).toStrictEqual({ type: "string" });
  });

  it("lists a keyword the validator does not check, with the property's path", () => {
    expect(kept({ type: "string", pattern: "^a" })).toStrictEqual({
      p: { type: "string" },
      dropped: [NOT_SUPPORTED("p", "pattern")],
    });
    // Only additionalProperties: false has words of its own, not every keyword that is false.
    expect(kept({ type: "array", uniqueItems: false }).dropped).toStrictEqual([NOT_SUPPORTED("p", "uniqueItems")]);
    expect(kept({ type: "string", $ref: 5 }).dropped).toStrictEqual([NOT_SUPPORTED("p", "$ref")]);
  });

  it("that is no schema at all is dropped", () => {
    for (const property of [null, 1, "string", ["string"]])
      expect(kept(property), JSON.stringify(property)).toStrictEqual({
        p: undefined,
        dropped: ["p: optional property dropped (its type cannot be expressed)"],
      });
  });
});

describe("a property's type", () => {
  const typeOf = (property: unknown) => kept(property);

  it("is one of the six types, or the property is dropped", () => {
    for (const type of ["string", "integer", "number", "boolean", "array", "object"])
      expect(typeOf({ type }).p, type).toStrictEqual({ type });
    expect(typeOf({ type: "null" })).toStrictEqual({
      p: undefined,
      dropped: ["p: optional property dropped (its type cannot be expressed)"],
    });
    expect(typeOf({ type: "date" }).p).toBeUndefined();
    expect(typeOf(true).p).toBeUndefined();
  });

  it("stays in required, without a type, when it cannot be written", () => {
    expect(cutInputSchema({ type: "object", properties: { p: { type: "null" } }, required: ["p"] })).toStrictEqual({
      parameters: { type: "object", properties: {}, required: ["p"] },
      dropped: ["p: required, kept without a type (checked by the server)"],
    });
  });

  it("is the one real type of a list with null, which it notes", () => {
    expect(typeOf({ type: ["string", "null"] })).toStrictEqual({
      p: { type: "string" },
      dropped: ["p: null allowed by the server; sending null is treated as absent"],
    });
    expect(typeOf({ type: ["boolean"] })).toStrictEqual({ p: { type: "boolean" }, dropped: [] });
    for (const type of [["string", "integer"], ["date", "null"], [1], ["null"], []])
      expect(typeOf({ type }).p, JSON.stringify(type)).toBeUndefined();
  });

  it("is number for integer or number", () => {
    expect(typeOf({ type: ["integer", "number"] })).toStrictEqual({ p: { type: "number" }, dropped: [] });
    expect(typeOf({ type: ["number", "integer"] }).p).toStrictEqual({ type: "number" });
    expect(typeOf({ type: ["integer", "string"] }).p).toBeUndefined();
    expect(typeOf({ type: ["number", "string"] }).p).toBeUndefined();
    expect(typeOf({ type: ["integer", "integer", "number"] }).p).toBeUndefined();
  });

  it("is the one type of an anyOf or oneOf, nulls aside, which it notes", () => {
    for (const key of ["anyOf", "oneOf"]) {
      expect(typeOf({ [key]: [{ type: "integer" }, { type: "null" }, { type: "integer", minimum: 1 }] })).toStrictEqual(
        {
          p: { type: "integer" },
          dropped: [`p: ${key} reduced to its one type (branch constraints are checked by the server)`],
        },
      );
      expect(typeOf({ [key]: [{ type: "string" }, { type: "number" }] }).p).toBeUndefined();
      expect(typeOf({ [key]: [{ type: "string" }, "x"] }).p).toBeUndefined();
      expect(typeOf({ [key]: [{ type: "string" }, null] }).p).toBeUndefined();
      // A branch of no type leaves the property without one, and nothing "reduced".
      expect(typeOf({ [key]: [{ type: "date" }] })).toStrictEqual({
        p: undefined,
        dropped: ["p: optional property dropped (its type cannot be expressed)"],
      });
      expect(typeOf({ [key]: [{ type: "string" }, { type: "date" }] }).p).toBeUndefined();
      expect(typeOf({ [key]: [{ type: "null" }] }).p).toBeUndefined();
    }
    expect(typeOf({ anyOf: "string", oneOf: [{ type: "boolean" }] }).p).toStrictEqual({ type: "boolean" });
  });

  it("reads a branch's $ref and nullable list, keeping the branch's own notes out", () => {
    const cut = one(
      { anyOf: [{ $ref: "#/$defs/Name" }, { type: ["string", "null"] }] },
      { $defs: { Name: { type: "string", pattern: "^a" } } },
    );
    expect(cut).toStrictEqual({
      parameters: { type: "object", properties: { p: { type: "string" } }, required: [] },
      dropped: ["p: anyOf reduced to its one type (branch constraints are checked by the server)"],
    });
  });

  it("is the type of its const or first non-null enum value when it names none", () => {
    expect(typeOf({ const: "a" }).p).toStrictEqual({ type: "string", enum: ["a"] });
    expect(typeOf({ const: true }).p).toStrictEqual({ type: "boolean", enum: [true] });
    expect(typeOf({ const: 3 }).p).toStrictEqual({ type: "integer", enum: [3] });
    expect(typeOf({ const: 1.5 }).p).toStrictEqual({ type: "number", enum: [1.5] });
    expect(typeOf({ enum: [null, false] }).p).toStrictEqual({ type: "boolean", enum: [false] });
    expect(typeOf({ enum: [null, 2] }).p).toStrictEqual({ type: "integer", enum: [2] });
    for (const property of [{ const: {} }, { const: null }, { enum: [null] }, { enum: [[1]] }, { enum: "a" }, {}])
      expect(typeOf(property).p, JSON.stringify(property)).toBeUndefined();
  });
});

describe("an array's items and an object's properties", () => {
  it("keeps the items' schema, or says the items are not checked", () => {
    expect(kept({ type: "array", items: { type: "string", pattern: "x" } })).toStrictEqual({
      p: { type: "array", items: { type: "string" } },
      dropped: [NOT_SUPPORTED("p[]", "pattern")],
    });
    const unchecked = "p.items: item schema cannot be expressed; items are not checked";
    for (const items of [[{ type: "string" }], { type: "null" }, true])
      expect(kept({ type: "array", items }), JSON.stringify(items)).toStrictEqual({
        p: { type: "array" },
        dropped: [unchecked],
      });
    expect(kept({ type: "array" })).toStrictEqual({ p: { type: "array" }, dropped: [] });
    expect(kept({ type: "string", items: { type: "string" } })).toStrictEqual({ p: { type: "string" }, dropped: [] });
  });

  it("keeps nested properties with their paths, and required only when it names some", () => {
    const cut = kept({
      type: "object",
      properties: { q: { type: "string", format: "uri" }, r: { type: "null" } },
      required: ["q"],
    });
    expect(cut).toStrictEqual({
      p: { type: "object", properties: { q: { type: "string" } }, required: ["q"] },
      dropped: [NOT_SUPPORTED("p.q", "format"), "p.r: optional property dropped (its type cannot be expressed)"],
    });
    expect(kept({ type: "object", properties: {} }).p).toStrictEqual({ type: "object", properties: {} });
    expect(kept({ type: "object", properties: [] }).p).toStrictEqual({ type: "object" });
    expect(kept({ type: "string", properties: { q: { type: "string" } } }).p).toStrictEqual({ type: "string" });
  });

  /** An object `levels` deep under `p`, its innermost one with a property of its own. */
  const nested = (levels: number): unknown =>
    levels === 0 ? { type: "string" } : { type: "object", properties: { n: nested(levels - 1) } };

  it("keeps objects nested eight deep, and a deeper one as a free-form object", () => {
    const eight = kept(nested(8));
    expect(eight.dropped).toStrictEqual([]);
    expect(JSON.stringify(eight.p)).toBe(JSON.stringify(nested(8)));
    const nine = kept(nested(9));
    expect(nine.dropped).toStrictEqual(["p.n.n.n.n.n.n.n.n: nested too deep; kept as a free-form object"]);
  });

  it("counts an array's items as a level", () => {
    const deep = { type: "array", items: nested(8) };
    expect(kept(deep).dropped).toStrictEqual(["p[].n.n.n.n.n.n.n: nested too deep; kept as a free-form object"]);
  });
});

describe("a $ref", () => {
  it("is followed to $defs or definitions, its siblings kept over the target's", () => {
    const defs = { $defs: { A: { type: "string", description: "a" } }, definitions: { B: { type: "boolean" } } };
    expect(kept({ $ref: "#/$defs/A", description: "mine" }, defs).p).toStrictEqual({
      type: "string",
      description: "mine",
    });
    expect(kept({ $ref: "#/definitions/B" }, defs).p).toStrictEqual({ type: "boolean" });
  });

  it("reads ~1 and ~0 in a name as / and ~", () => {
    expect(kept({ $ref: "#/$defs/a~1b~0c" }, { $defs: { "a/b~c": { type: "integer" } } }).p).toStrictEqual({
      type: "integer",
    });
    expect(
      kept({ $ref: "#/$defs/a~01" }, { $defs: { "a~1": { type: "number" }, "a/": { type: "string" } } }).p,
    ).toStrictEqual({ type: "number" });
  });

  it("to the root is followed", () => {
    const cut = cutInputSchema({ type: "object", properties: { self: { $ref: "#" } } });
    expect(cut.parameters.properties.self?.type).toBe("object");
  });

  it("that cannot be followed keeps its siblings and says so", () => {
    for (const [ref, extra] of [
      ["#/$defs/Missing", { $defs: {} }],
      ["#/$defs/A", {}],
      ["https://example.com/schema", {}],
      ["x#/$defs/A", { $defs: { A: { type: "string" } } }],
      ["#/$defs/A\nB", { $defs: { A: { type: "string" }, "A\nB": { type: "string" } } }],
      ["#/other/A", { other: { A: { type: "string" } } }],
      ["#/$defs/A", { $defs: { A: 1 } }],
    ] as const) {
      expect(kept({ $ref: ref, type: "boolean" }, extra), ref).toStrictEqual({
        p: { type: "boolean" },
        dropped: [...("other" in extra ? [NOT_SUPPORTED("(root)", "other")] : []), `p: $ref ${ref} cannot be followed`],
      });
    }
  });

  it("is followed through eight hops, not nine", () => {
    const chain = (hops: number) =>
      Object.fromEntries(
        Array.from({ length: hops }, (_, i) => [
          `D${i}`,
          i === hops - 1 ? { type: "string" } : { $ref: `#/$defs/D${i + 1}` },
        ]),
      );
    expect(kept({ $ref: "#/$defs/D0" }, { $defs: chain(8) })).toStrictEqual({ p: { type: "string" }, dropped: [] });
    expect(kept({ $ref: "#/$defs/D0" }, { $defs: chain(9) })).toStrictEqual({
      p: undefined,
      dropped: ["p: $ref #/$defs/D8 cannot be followed", "p: optional property dropped (its type cannot be expressed)"],
    });
  });
});
