import type { z } from "zod";

export type Parsed<T> = { ok: true; value: T } | { ok: false; error: string; issues: FieldIssue[] };
export type FieldIssue = { path: string; message: string };

/** Errors as values: parse raw text as JSON, then against a schema, naming the failing field. */
export function parseJson<T>(schema: z.ZodType<T>, text: string): Parsed<T> {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    const message = `malformed JSON: ${(e as Error).message}`;
    return { ok: false, error: message, issues: [{ path: "", message }] };
  }
  return parseValue(schema, raw);
}

export function parseValue<T>(schema: z.ZodType<T>, raw: unknown): Parsed<T> {
  const result = schema.safeParse(raw);
  if (result.success) return { ok: true, value: result.data };
  const issues = result.error.issues.map((i) => ({
    path: i.path.map(String).join("."),
    message: i.message,
  }));
  const error = issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join("; ");
  return { ok: false, error, issues };
}
