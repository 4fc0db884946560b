import type { ParameterSchema, ParametersSchema } from "./skill-manifest.js";

/**
 * Tool-call arguments checked against a tool's parameter schema before anything reaches a
 * device. Pure and zod-free so workerd and Node run the very same rules.
 *
 * - required: undefined, null and "" count as missing
 * - types strict: no bool→int, no string→number; int→float is fine; integer means whole
 * - enums, minimum/maximum, nested objects and arrays checked recursively
 * - unknown keys dropped, defaults injected, null on an optional key treated as absent
 * - camelCase and snake_case both accepted; when both are given the schema's spelling wins
 */

export type ArgumentsParse = { ok: true; value: Record<string, unknown> } | { ok: false; error: string };

export type ArgumentsValidation =
  | { ok: true; value: Record<string, unknown> }
  | { ok: false; error: string; field: string };

type JsonObject = Record<string, unknown>;

const isPlainObject = (v: unknown): v is JsonObject => typeof v === "object" && v !== null && !Array.isArray(v);

/** The model's raw `arguments` (a JSON string, or an object from some providers) as an object. */
export function parseToolArguments(raw: string | object | null | undefined): ArgumentsParse {
  if (raw === undefined || raw === null) return { ok: true, value: {} };
  if (typeof raw === "string") {
    if (raw.trim() === "") return { ok: true, value: {} };
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch (e) {
      return { ok: false, error: `arguments are not valid JSON: ${(e as Error).message}` };
    }
    // Some models double-encode: the arguments string holds a JSON string of the object.
    if (typeof parsed === "string") {
      try {
        parsed = JSON.parse(parsed);
      } catch {
        // keep the string; reported below as not an object
      }
    }
    return asObject(parsed);
  }
  return asObject(raw);
}

function asObject(value: unknown): ArgumentsParse {
  if (value === null) return { ok: true, value: {} };
  if (isPlainObject(value)) return { ok: true, value: { ...value } };
  return { ok: false, error: `arguments are not valid JSON: expected an object, got ${typeName(value)}` };
}

type Problem = { field: string; message: string };

export function validateArguments(
  toolName: string,
  schema: ParametersSchema,
  args: Record<string, unknown>,
): ArgumentsValidation {
  const problems: Problem[] = [];
  const value = checkObject(args, schema.properties ?? {}, schema.required ?? [], "", problems);
  if (problems.length === 0) return { ok: true, value };
  const properties = Object.keys(schema.properties ?? {});
  const required = schema.required ?? [];
  const optional = properties.filter((p) => !required.includes(p));
  const what = problems.map((p) => p.message).join("; ");
  return {
    ok: false,
    error: `Invalid parameters for '${toolName}': ${what}. Required: [${required.join(", ")}]. Optional: [${optional.join(", ")}].`,
    field: problems[0]!.field,
  };
}

function checkObject(
  input: JsonObject,
  properties: Record<string, ParameterSchema>,
  required: readonly string[],
  path: string,
  problems: Problem[],
): JsonObject {
  // Required names without a property schema are looked up too (they pass through unchecked).
  const named = normalizeNames(input, [...Object.keys(properties), ...required]);
  const out: JsonObject = {};
  // Schema order, not the model's: binaries receive argv in the schema's order.
  for (const [key, propSchema] of Object.entries(properties)) {
    const field = path ? `${path}.${key}` : key;
    const given = named[key];
    const absent = given === undefined || given === null || (given === "" && required.includes(key));
    if (absent) {
      if (required.includes(key)) problems.push({ field, message: `missing '${field}'` });
      else if (propSchema.default !== undefined) out[key] = structuredCloneJson(propSchema.default);
      continue;
    }
    const checked = checkValue(given, propSchema, field, problems);
    if (checked.ok) out[key] = checked.value;
  }
  // Required names the schema does not describe still have to be there (no type to check).
  for (const key of required) {
    if (key in properties) continue;
    const field = path ? `${path}.${key}` : key;
    const given = named[key];
    if (given === undefined || given === null || given === "") problems.push({ field, message: `missing '${field}'` });
    else out[key] = given;
  }
  return out;
}

function checkValue(
  value: unknown,
  schema: ParameterSchema,
  field: string,
  problems: Problem[],
): { ok: true; value: unknown } | { ok: false } {
  const typeProblem = wrongType(value, schema.type);
  if (typeProblem) {
    problems.push({ field, message: `'${field}' must be ${typeProblem} (got ${describe(value)})` });
    return { ok: false };
  }
  if (schema.enum && !schema.enum.some((allowed) => sameJson(allowed, value))) {
    const allowed = schema.enum.map((v) => (typeof v === "string" ? v : JSON.stringify(v))).join(", ");
    problems.push({ field, message: `'${field}' must be one of [${allowed}] (got ${JSON.stringify(value)})` });
    return { ok: false };
  }
  if (typeof value === "number") {
    if (schema.minimum !== undefined && value < schema.minimum) {
      problems.push({ field, message: `'${field}' must be >= ${schema.minimum} (got ${value})` });
      return { ok: false };
    }
    if (schema.maximum !== undefined && value > schema.maximum) {
      problems.push({ field, message: `'${field}' must be <= ${schema.maximum} (got ${value})` });
      return { ok: false };
    }
  }
  if (schema.type === "object" && isPlainObject(value)) {
    // An object without declared properties is free-form: keep it whole.
    if (!schema.properties) return { ok: true, value };
    const before = problems.length;
    const out = checkObject(value, schema.properties, schema.required ?? [], field, problems);
    return problems.length === before ? { ok: true, value: out } : { ok: false };
  }
  if (schema.type === "array" && Array.isArray(value)) {
    if (!schema.items) return { ok: true, value };
    const before = problems.length;
    const out = value.map((item, i) => {
      const checked = checkValue(item, schema.items!, `${field}[${i}]`, problems);
      return checked.ok ? checked.value : item;
    });
    return problems.length === before ? { ok: true, value: out } : { ok: false };
  }
  return { ok: true, value };
}

/** What the value should have been, or null if its type is right. */
function wrongType(value: unknown, type: ParameterSchema["type"]): string | null {
  switch (type) {
    case "string":
      return typeof value === "string" ? null : "a string";
    case "integer":
      return typeof value === "number" && Number.isInteger(value) ? null : "an integer";
    case "number":
      return typeof value === "number" && Number.isFinite(value) ? null : "a number";
    case "boolean":
      return typeof value === "boolean" ? null : "a boolean";
    case "array":
      return Array.isArray(value) ? null : "an array";
    case "object":
      return isPlainObject(value) ? null : "an object";
  }
}

/**
 * `filePath` and `file_path` name the same parameter. Keys the schema knows are taken as given;
 * another spelling fills a schema key only if that key itself is absent.
 */
function normalizeNames(input: JsonObject, schemaKeys: readonly string[]): JsonObject {
  const known = new Set(schemaKeys);
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(input)) if (known.has(key)) out[key] = value;
  for (const [key, value] of Object.entries(input)) {
    if (known.has(key)) continue;
    for (const alias of [toSnake(key), toCamel(key)]) {
      if (alias !== key && known.has(alias) && !(alias in out)) {
        out[alias] = value;
        break;
      }
    }
  }
  return out;
}

const toSnake = (name: string) => name.replace(/([a-z0-9])([A-Z])/g, "$1_$2").toLowerCase();
const toCamel = (name: string) => name.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());

function typeName(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value;
}

function describe(value: unknown): string {
  const type = typeName(value);
  if (type === "number") return Number.isInteger(value) ? `integer ${value}` : `number ${value}`;
  if (type === "string") {
    const text = String(value);
    return `string ${JSON.stringify(text.length > 40 ? `${text.slice(0, 40)}…` : text)}`;
  }
  return type;
}

function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  return JSON.stringify(a) === JSON.stringify(b);
}

/** Defaults are copied so a tool that mutates its arguments cannot change the schema. */
function structuredCloneJson(value: unknown): unknown {
  return typeof value === "object" && value !== null ? JSON.parse(JSON.stringify(value)) : value;
}
