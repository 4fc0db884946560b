import type { z } from "zod";

export type Parsed<T> = { ok: true; value: T } | { ok: false; error: string; issues: FieldIssue[] };
export type FieldIssue = { path: string; message: string };

/** Errors as values: parse raw text as JSON, then against a schema, naming the failing field. */
export function parseJson<T>(schema: z.ZodType<T>, text: string): Parsed<T> {
  const raw = jsonOrError(text);
  return raw.ok ? parseValue(schema, raw.value) : raw;
}

/**
 * `parseJson(union, text)` for a union with one member that nearly every message is: the value is
 * parsed by that member's own schema first, without the union's dispatch (a command or a result per
 * tool call, on both ends of the socket). The member is one of the union's options and checks the
 * discriminators that pick it itself, so a value it accepts is one the union would give to it: the
 * answer is the union's. Whatever the member refuses is parsed by the union, so its errors name the
 * failing field as before.
 */
export function parseJsonPreferring<T, M extends T>(
  union: z.ZodType<T>,
  member: z.ZodType<M>,
  text: string,
): Parsed<T> {
  const parsed = jsonOrError(text);
  if (!parsed.ok) return parsed;
  const result = member.safeParse(parsed.value);
  return result.success ? { ok: true, value: result.data } : parseValue(union, parsed.value);
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

function jsonOrError(text: string): Parsed<unknown> {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (e) {
    const message = `malformed JSON: ${(e as Error).message}`;
    return { ok: false, error: message, issues: [{ path: "", message }] };
  }
}
