import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  checkContent,
  contentSchema,
  DECLINE_OPTION,
  type Field,
  type Form,
  questionFor,
  readAnswer,
  readForm,
} from "../../../durable-objects/conversation/mcp/elicitation-form.js";

/** The schema of the conformance suite's SEP-1034 scenario: every kind of default. */
const DEFAULTS = {
  type: "object",
  properties: {
    name: { type: "string", description: "User name", default: "John Doe" },
    age: { type: "integer", description: "User age", default: 30 },
    score: { type: "number", description: "User score", default: 95.5 },
    status: { type: "string", description: "User status", enum: ["active", "inactive", "pending"], default: "active" },
    verified: { type: "boolean", description: "Verification status", default: true },
  },
  required: [],
};

function form(schema: unknown): Form {
  const read = readForm(schema);
  if (!read.ok) throw new Error(read.error);
  return read.form;
}

describe("readForm: the spec's restricted schema as fields", () => {
  it("reads every primitive kind, with titles, limits, formats and defaults", () => {
    const f = form({
      type: "object",
      properties: {
        email: { type: "string", title: "E-mail", format: "email", minLength: 3 },
        n: { type: "integer", minimum: 1, maximum: 9 },
        color: { type: "string", oneOf: [{ const: "r", title: "Red" }] },
        legacy: { type: "string", enum: ["a", "b"], enumNames: ["Ay", "Bee"] },
        tags: { type: "array", items: { type: "string", enum: ["x", "y"] }, maxItems: 2, default: ["x"] },
        ok: { type: "boolean" },
      },
      required: ["email"],
    });
    expect(f.fields).toEqual([
      { name: "email", title: "E-mail", required: true, kind: "string", minLength: 3, format: "email" },
      { name: "n", required: false, kind: "number", integer: true, minimum: 1, maximum: 9 },
      { name: "color", required: false, kind: "enum", choices: [{ value: "r", title: "Red" }] },
      {
        name: "legacy",
        required: false,
        kind: "enum",
        choices: [
          { value: "a", title: "Ay" },
          { value: "b", title: "Bee" },
        ],
      },
      {
        name: "tags",
        required: false,
        kind: "multi",
        choices: [
          { value: "x", title: "x" },
          { value: "y", title: "y" },
        ],
        maxItems: 2,
        default: ["x"],
      },
      { name: "ok", required: false, kind: "boolean" },
    ]);
  });

  it("refuses nested objects, unknown types and required names that are not properties", () => {
    const nested = { type: "object", properties: { a: { type: "object", properties: {} } } };
    expect(readForm(nested)).toEqual({ ok: false, error: "property 'a' is not a primitive the spec allows in a form" });
    expect(readForm({ type: "object", properties: { a: { type: "null" } } })).toMatchObject({ ok: false });
    expect(readForm({ type: "object", properties: {}, required: ["x"] })).toEqual({
      ok: false,
      error: "required property 'x' is not defined",
    });
    expect(readForm({ type: "string" })).toMatchObject({ ok: false });
  });
});

describe("readAnswer: a person's text, checked, with the defaults applied", () => {
  const f = form(DEFAULTS);

  it("`{}` accepts every default (SEP-1034)", () => {
    expect(readAnswer(f, "{}")).toEqual({
      ok: true,
      answer: {
        action: "accept",
        content: { name: "John Doe", age: 30, score: 95.5, status: "active", verified: true },
      },
    });
  });

  it("lines `name: value` are read as each field's type; the rest take their defaults", () => {
    expect(readAnswer(f, "age: 41\nverified: no\nstatus: pending")).toEqual({
      ok: true,
      answer: {
        action: "accept",
        content: { name: "John Doe", age: 41, score: 95.5, status: "pending", verified: false },
      },
    });
  });

  it("refuses what the schema does not allow, naming the field", () => {
    expect(readAnswer(f, "age: 4.5")).toMatchObject({ ok: false, error: expect.stringMatching(/^age: /) });
    expect(readAnswer(f, "status: gone")).toMatchObject({ ok: false, error: expect.stringMatching(/^status: /) });
    expect(readAnswer(f, '{"extra": 1}')).toMatchObject({ ok: false, error: expect.stringMatching(/extra|key/i) });
    expect(readAnswer(f, "just some words")).toMatchObject({ ok: false, error: expect.stringMatching(/JSON object/) });
  });

  it("a form of one field takes the text as its value: a choice by value or title, yes/no, a number", () => {
    const pick = form({
      type: "object",
      properties: {
        c: {
          type: "string",
          oneOf: [
            { const: "r", title: "Red" },
            { const: "g", title: "Green" },
          ],
        },
      },
      required: ["c"],
    });
    expect(readAnswer(pick, "Green")).toEqual({ ok: true, answer: { action: "accept", content: { c: "g" } } });
    expect(readAnswer(pick, "r")).toEqual({ ok: true, answer: { action: "accept", content: { c: "r" } } });
    expect(readAnswer(pick, "blue")).toMatchObject({ ok: false });
    const yes = form({ type: "object", properties: { go: { type: "boolean" } }, required: ["go"] });
    expect(readAnswer(yes, "Yes")).toEqual({ ok: true, answer: { action: "accept", content: { go: true } } });
    const n = form({ type: "object", properties: { n: { type: "number", maximum: 10 } }, required: ["n"] });
    expect(readAnswer(n, "2.5")).toEqual({ ok: true, answer: { action: "accept", content: { n: 2.5 } } });
    expect(readAnswer(n, "11")).toMatchObject({ ok: false, error: expect.stringMatching(/^n: /) });
    const many = form({
      type: "object",
      properties: { t: { type: "array", items: { type: "string", enum: ["x", "y", "z"] }, minItems: 1 } },
    });
    expect(readAnswer(many, "x, z")).toEqual({ ok: true, answer: { action: "accept", content: { t: ["x", "z"] } } });
    expect(readAnswer(many, "x, x")).toMatchObject({ ok: false });
  });

  it("a required field without a default must be given", () => {
    const r = form({ type: "object", properties: { who: { type: "string" } }, required: ["who"] });
    expect(readAnswer(r, "{}")).toMatchObject({ ok: false, error: expect.stringMatching(/^who: /) });
  });

  it("the decline option declines, unless it is one of the choices", () => {
    expect(readAnswer(f, DECLINE_OPTION)).toEqual({ ok: true, answer: { action: "decline" } });
    const odd = form({ type: "object", properties: { c: { type: "string", enum: [DECLINE_OPTION, "b"] } } });
    expect(readAnswer(odd, DECLINE_OPTION)).toEqual({
      ok: true,
      answer: { action: "accept", content: { c: DECLINE_OPTION } },
    });
  });

  it("formats are checked", () => {
    const e = form({ type: "object", properties: { e: { type: "string", format: "email" } }, required: ["e"] });
    expect(readAnswer(e, "a@example.com")).toMatchObject({ ok: true });
    expect(readAnswer(e, "not an address")).toMatchObject({ ok: false });
    const d = form({ type: "object", properties: { d: { type: "string", format: "date" } }, required: ["d"] });
    expect(readAnswer(d, "2026-11-28")).toMatchObject({ ok: true });
    expect(readAnswer(d, "28/11/2026")).toMatchObject({ ok: false });
  });
});

describe("questionFor: what the person is shown", () => {
  it("a choice of one field offers its titles as buttons, then the decline", () => {
    const f = form({ type: "object", properties: { c: { type: "string", enum: ["eu", "us"] } }, required: ["c"] });
    expect(questionFor("deploy", "Which region?", f)).toEqual({
      question: "[deploy] Which region?",
      options: ["eu", "us", DECLINE_OPTION],
    });
  });

  it("a form of several fields lists them with their defaults and says how to answer", () => {
    const q = questionFor("conf", "Please accept", form(DEFAULTS));
    expect(q.options).toEqual([DECLINE_OPTION]);
    expect(q.question).toContain("- age: integer, default 30 — User age");
    expect(q.question).toContain("- status: one of active, inactive, pending");
    expect(q.question).toContain("`{}` takes every default");
  });
});

/** A field of any kind with a default its own schema accepts. */
const fieldWithDefault: fc.Arbitrary<Field> = fc.oneof(
  fc.string({ maxLength: 20 }).map((d) => ({ name: "", required: false, kind: "string" as const, default: d })),
  fc
    .tuple(fc.boolean(), fc.integer({ min: -1000, max: 1000 }))
    .map(([integer, d]) => ({ name: "", required: false, kind: "number" as const, integer, default: d })),
  fc.boolean().map((d) => ({ name: "", required: false, kind: "boolean" as const, default: d })),
  fc.uniqueArray(fc.string({ minLength: 1, maxLength: 8 }), { minLength: 1, maxLength: 5 }).chain((values) =>
    fc.constantFrom(...values).map((d) => ({
      name: "",
      required: false,
      kind: "enum" as const,
      choices: values.map((value) => ({ value, title: value })),
      default: d,
    })),
  ),
);

const formsWithDefaults = fc
  .uniqueArray(fc.stringMatching(/^[a-z][a-z0-9_]{0,9}$/), { minLength: 1, maxLength: 6 })
  .chain((names) =>
    fc
      .array(fieldWithDefault, { minLength: names.length, maxLength: names.length })
      .map((fields) => ({ fields: fields.map((f, i) => ({ ...f, name: names[i]!, required: i % 2 === 0 })) })),
  );

describe("properties", () => {
  it("accepting nothing gives every field its default, and the result passes the schema again", () => {
    fc.assert(
      fc.property(formsWithDefaults, (f) => {
        const got = checkContent(f, {});
        expect(got.ok).toBe(true);
        const content = got.ok && got.answer.action === "accept" ? got.answer.content : {};
        for (const field of f.fields) expect(content[field.name]).toEqual(field.default);
        expect(contentSchema(f).safeParse(content).success).toBe(true);
      }),
    );
  });

  it("a given value wins over the default; a value of the wrong type is refused", () => {
    fc.assert(
      fc.property(formsWithDefaults, fc.nat(), (f, pick) => {
        const field = f.fields[pick % f.fields.length]!;
        if (field.kind === "string") {
          const got = checkContent(f, { [field.name]: `${field.default}!` });
          expect(got.ok && got.answer.action === "accept" && got.answer.content[field.name]).toBe(`${field.default}!`);
        }
        expect(checkContent(f, { [field.name]: { nested: true } }).ok).toBe(false);
      }),
    );
  });
});
