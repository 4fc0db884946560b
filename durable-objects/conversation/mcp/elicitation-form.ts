import { z } from "zod";

/**
 * A remote MCP server's `elicitation/create` in form mode, as the person answers it: the requested
 * schema (the spec's restricted JSON Schema, a flat object of primitive properties) read into
 * fields, the question a person is shown, and their text answer read, checked and completed with
 * the schema's defaults. Pure: the conversation's elicitations.ts does the waiting.
 */

export type Choice = { value: string; title: string };

type Common = { name: string; title?: string; description?: string; required: boolean };
export type Field = Common &
  (
    | { kind: "string"; minLength?: number; maxLength?: number; format?: StringFormat; default?: string }
    | { kind: "number"; integer: boolean; minimum?: number; maximum?: number; default?: number }
    | { kind: "boolean"; default?: boolean }
    | { kind: "enum"; choices: Choice[]; default?: string }
    | { kind: "multi"; choices: Choice[]; minItems?: number; maxItems?: number; default?: string[] }
  );
export type Form = { fields: Field[] };

type StringFormat = "email" | "uri" | "date" | "date-time";

/** The option a question offers to decline; an answer equal to it declines (unless it is a choice). */
export const DECLINE_OPTION = "✗ Decline";

const Text = { title: z.string().optional(), description: z.string().optional() };
const TitledChoice = z.object({ const: z.string(), title: z.string() });
const StringProp = z.object({
  type: z.literal("string"),
  ...Text,
  minLength: z.number().int().min(0).optional(),
  maxLength: z.number().int().min(0).optional(),
  format: z.enum(["email", "uri", "date", "date-time"]).optional(),
  default: z.string().optional(),
});
const EnumProp = z.object({
  type: z.literal("string"),
  ...Text,
  enum: z.array(z.string()).min(1),
  /** the legacy titles, one per value */
  enumNames: z.array(z.string()).optional(),
  default: z.string().optional(),
});
const OneOfProp = z.object({
  type: z.literal("string"),
  ...Text,
  oneOf: z.array(TitledChoice).min(1),
  default: z.string().optional(),
});
const NumberProp = z.object({
  type: z.enum(["number", "integer"]),
  ...Text,
  minimum: z.number().optional(),
  maximum: z.number().optional(),
  default: z.number().optional(),
});
const BooleanProp = z.object({ type: z.literal("boolean"), ...Text, default: z.boolean().optional() });
const MultiProp = z.object({
  type: z.literal("array"),
  ...Text,
  minItems: z.number().int().min(0).optional(),
  maxItems: z.number().int().min(0).optional(),
  items: z.union([
    z.object({ type: z.literal("string"), enum: z.array(z.string()).min(1) }),
    z.object({ anyOf: z.array(TitledChoice).min(1) }),
  ]),
  default: z.array(z.string()).optional(),
});
const RequestedSchema = z.object({
  type: z.literal("object"),
  properties: z.record(z.string(), z.unknown()),
  required: z.array(z.string()).optional(),
});

/** The requested schema as fields, or why it is not one a person can be asked (the spec's restricted subset). */
export function readForm(requested: unknown): { ok: true; form: Form } | { ok: false; error: string } {
  const schema = RequestedSchema.safeParse(requested);
  if (!schema.success) return { ok: false, error: "the requested schema is not an object schema with properties" };
  const required = new Set(schema.data.required ?? []);
  const fields: Field[] = [];
  for (const [name, raw] of Object.entries(schema.data.properties)) {
    const field = readField(name, raw, required.has(name));
    if (!field) return { ok: false, error: `property '${name}' is not a primitive the spec allows in a form` };
    fields.push(field);
  }
  const unknown = [...required].find((name) => !fields.some((f) => f.name === name));
  if (unknown !== undefined) return { ok: false, error: `required property '${unknown}' is not defined` };
  return { ok: true, form: { fields } };
}

function readField(name: string, raw: unknown, required: boolean): Field | null {
  const base = (p: { title?: string | undefined; description?: string | undefined }): Common => ({
    name,
    required,
    ...(p.title !== undefined ? { title: p.title } : {}),
    ...(p.description !== undefined ? { description: p.description } : {}),
  });
  const defined = <T extends object>(o: T): T =>
    Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
  // In this order: a string property with `enum` or `oneOf` is a choice, not free text.
  const en = EnumProp.safeParse(raw);
  if (en.success) {
    const d = en.data;
    const choices = d.enum.map((value, i) => ({ value, title: d.enumNames?.[i] ?? value }));
    return { ...base(d), kind: "enum", choices, ...defined({ default: d.default }) };
  }
  const one = OneOfProp.safeParse(raw);
  if (one.success) {
    const d = one.data;
    const choices = d.oneOf.map((c) => ({ value: c.const, title: c.title }));
    return { ...base(d), kind: "enum", choices, ...defined({ default: d.default }) };
  }
  const str = StringProp.safeParse(raw);
  if (str.success) {
    const { minLength, maxLength, format, default: dflt } = str.data;
    return { ...base(str.data), kind: "string", ...defined({ minLength, maxLength, format, default: dflt }) };
  }
  const num = NumberProp.safeParse(raw);
  if (num.success) {
    const { minimum, maximum, default: dflt } = num.data;
    const integer = num.data.type === "integer";
    return { ...base(num.data), kind: "number", integer, ...defined({ minimum, maximum, default: dflt }) };
  }
  const bool = BooleanProp.safeParse(raw);
  if (bool.success) return { ...base(bool.data), kind: "boolean", ...defined({ default: bool.data.default }) };
  const multi = MultiProp.safeParse(raw);
  if (multi.success) {
    const d = multi.data;
    const choices =
      "enum" in d.items
        ? d.items.enum.map((value) => ({ value, title: value }))
        : d.items.anyOf.map((c) => ({ value: c.const, title: c.title }));
    const { minItems, maxItems } = d;
    return { ...base(d), kind: "multi", choices, ...defined({ minItems, maxItems, default: d.default }) };
  }
  return null;
}

/**
 * The zod schema an accepted answer's content must pass: every property of its type and limits,
 * nothing else; a property left out takes its default when it has one (SEP-1034), and must be
 * given when it is required and has none.
 */
export function contentSchema(form: Form): z.ZodType<Record<string, unknown>> {
  const shape: Record<string, z.ZodType> = {};
  for (const field of form.fields) {
    const value = valueSchema(field);
    shape[field.name] =
      field.default !== undefined ? value.default(field.default as never) : field.required ? value : value.optional();
  }
  return z.strictObject(shape) as unknown as z.ZodType<Record<string, unknown>>;
}

function valueSchema(field: Field): z.ZodType {
  switch (field.kind) {
    case "string": {
      let s = field.format ? formatSchema(field.format) : z.string();
      if (field.minLength !== undefined) s = s.min(field.minLength);
      if (field.maxLength !== undefined) s = s.max(field.maxLength);
      return s;
    }
    case "number": {
      let n = field.integer ? z.number().int() : z.number();
      if (field.minimum !== undefined) n = n.min(field.minimum);
      if (field.maximum !== undefined) n = n.max(field.maximum);
      return n;
    }
    case "boolean":
      return z.boolean();
    case "enum":
      return z.enum(field.choices.map((c) => c.value) as [string, ...string[]]);
    case "multi": {
      let a = z.array(z.enum(field.choices.map((c) => c.value) as [string, ...string[]]));
      if (field.minItems !== undefined) a = a.min(field.minItems);
      if (field.maxItems !== undefined) a = a.max(field.maxItems);
      return a.refine((v) => new Set(v).size === v.length, "each choice at most once");
    }
  }
}

function formatSchema(format: StringFormat): z.ZodString {
  switch (format) {
    case "email":
      return z.string().check(z.email());
    case "uri":
      return z.string().check(z.url());
    case "date":
      return z.string().check(z.iso.date());
    case "date-time":
      return z.string().check(z.iso.datetime({ offset: true }));
  }
}

export type Answer =
  | { action: "accept"; content: Record<string, unknown> }
  | { action: "decline" }
  | { action: "cancel" };

/**
 * A person's answer, as text (from the dashboard, the CLI or a chat), read against the form:
 * the option `DECLINE_OPTION` declines; a form of one field takes the text as that field's value
 * (a choice by its value or its title, `yes`/`no` for a boolean, choices separated by commas for
 * several); any form takes a JSON object, or lines `name: value`. `{}` takes every default.
 * The content is then checked by `contentSchema`, which fills in the defaults.
 */
export function readAnswer(form: Form, text: string): { ok: true; answer: Answer } | { ok: false; error: string } {
  const trimmed = text.trim();
  const only = form.fields.length === 1 ? form.fields[0]! : null;
  const isChoice = only?.kind === "enum" && only.choices.some((c) => c.value === trimmed || c.title === trimmed);
  if (trimmed === DECLINE_OPTION && !isChoice) return { ok: true, answer: { action: "decline" } };
  let candidate: Record<string, unknown> | null = null;
  if (trimmed.startsWith("{")) {
    try {
      const parsed: unknown = JSON.parse(trimmed);
      if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) candidate = parsed as Record<string, unknown>;
    } catch {
      // Not JSON: read as text below.
    }
  }
  if (!candidate && only) candidate = { [only.name]: fieldValue(only, trimmed) };
  if (!candidate) candidate = lines(form, trimmed);
  if (!candidate) {
    const names = form.fields.map((f) => f.name).join(", ");
    return { ok: false, error: `answer with a JSON object or one line 'name: value' per field (${names})` };
  }
  return checkContent(form, candidate);
}

/** Content given as an object (the API's `content`), checked as a text answer's is. */
export function checkContent(
  form: Form,
  candidate: Record<string, unknown>,
): { ok: true; answer: Answer } | { ok: false; error: string } {
  const checked = contentSchema(form).safeParse(candidate);
  if (!checked.success)
    return {
      ok: false,
      error: checked.error.issues.map((i) => `${i.path.join(".") || "answer"}: ${i.message}`).join("; "),
    };
  return { ok: true, answer: { action: "accept", content: checked.data } };
}

function lines(form: Form, text: string): Record<string, unknown> | null {
  const out: Record<string, unknown> = {};
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    const at = line.indexOf(":");
    if (at < 0) return null;
    const name = line.slice(0, at).trim();
    const field = form.fields.find((f) => f.name === name || f.title === name);
    // Unknown names are kept, so the schema names them in its refusal.
    out[field?.name ?? name] = field ? fieldValue(field, line.slice(at + 1).trim()) : line.slice(at + 1).trim();
  }
  return Object.keys(out).length > 0 ? out : null;
}

/** Text as the field's type; what cannot be read is left as text for the schema to refuse. */
function fieldValue(field: Field, text: string): unknown {
  switch (field.kind) {
    case "string":
      return text;
    case "number":
      return text !== "" && Number.isFinite(Number(text)) ? Number(text) : text;
    case "boolean": {
      const t = text.toLowerCase();
      if (["yes", "y", "true", "on", "1"].includes(t)) return true;
      if (["no", "n", "false", "off", "0"].includes(t)) return false;
      return text;
    }
    case "enum":
      return choiceValue(field.choices, text);
    case "multi":
      return text === ""
        ? []
        : text
            .split(",")
            .map((s) => choiceValue(field.choices, s.trim()))
            .filter((s) => s !== "");
  }
}

function choiceValue(choices: Choice[], text: string): string {
  return (choices.find((c) => c.value === text) ?? choices.find((c) => c.title === text))?.value ?? text;
}

/**
 * What a person is shown: the server's message under its name, the fields when there are several
 * (or one that needs explaining), and how to answer; options become a chat's buttons: the choices
 * of a form of one choice or one yes/no, then `DECLINE_OPTION`.
 */
export function questionFor(server: string, message: string, form: Form): { question: string; options: string[] } {
  const only = form.fields.length === 1 ? form.fields[0]! : null;
  const parts = [`[${server}] ${message}`];
  let options: string[] = [];
  if (only?.kind === "enum") options = only.choices.map((c) => c.title);
  else if (only?.kind === "boolean") options = ["yes", "no"];
  if (!only || only.kind === "multi" || only.kind === "number" || only.description) {
    parts.push(form.fields.map(describe).join("\n"));
  }
  if (form.fields.length > 1) parts.push("Answer with lines `name: value` or a JSON object; `{}` takes every default.");
  return { question: parts.join("\n\n"), options: [...options, DECLINE_OPTION] };
}

function describe(field: Field): string {
  const type =
    field.kind === "enum" || field.kind === "multi"
      ? `${field.kind === "multi" ? "any of" : "one of"} ${field.choices.map((c) => c.value).join(", ")}`
      : field.kind === "number"
        ? field.integer
          ? "integer"
          : "number"
        : field.kind === "boolean"
          ? "yes/no"
          : field.format
            ? `${field.format}`
            : "text";
  const extra = [
    field.required && field.default === undefined ? "required" : null,
    field.default !== undefined ? `default ${JSON.stringify(field.default)}` : null,
  ].filter(Boolean);
  const label = field.title && field.title !== field.name ? ` (${field.title})` : "";
  const about = field.description ? ` — ${field.description}` : "";
  return `- ${field.name}${label}: ${type}${extra.length ? `, ${extra.join(", ")}` : ""}${about}`;
}
