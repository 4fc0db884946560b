import type { ParameterSchema, ParametersSchema } from "./skill-manifest.js";

/**
 * An MCP tool's `inputSchema` (full JSON Schema) cut down to the subset our argument validator
 * checks (protocol/skill-manifest.ts ParameterSchema): type, description, default, enum, items,
 * properties, required, minimum, maximum. Pure; `dropped` is for the caller to log.
 *
 * Nothing is lost silently: every keyword or property left out is listed with its reason. What is
 * left out is a constraint the MCP server still checks itself (its error comes back as the tool's
 * error), so cutting never lets a wrong call through that the server would accept. Kept:
 * - `["string", "null"]` and `anyOf`/`oneOf` with one non-null type → that type;
 * - `const` → a one-value enum; local `$ref`s (`#/$defs/…`, `#/definitions/…`) are followed.
 * Properties whose type cannot be written in the subset: an optional one is dropped (the model
 * cannot send it), a required one stays in `required` without a type (passed through unchecked).
 * Pure annotations (`title`, `$schema`, `$id`, `$comment`, `examples`, `deprecated`, `readOnly`,
 * `writeOnly`) are not listed: they constrain nothing.
 */
export type CutSchema = { parameters: ParametersSchema; dropped: string[] };

type Json = Record<string, unknown>;

const TYPES = new Set(["string", "integer", "number", "boolean", "array", "object"]);
const ANNOTATIONS = new Set(["title", "$schema", "$id", "$comment", "examples", "deprecated", "readOnly", "writeOnly"]);
/**
 * Keywords handled by the code below rather than copied or listed as dropped. `$ref` is not one: a schema
 * reaches the listing through `resolveRef`, which takes a string `$ref` out, so one left is not a string.
 */
const HANDLED = new Set([
  "type",
  "description",
  "default",
  "enum",
  "const",
  "items",
  "properties",
  "required",
  "minimum",
  "maximum",
  "anyOf",
  "oneOf",
  "$defs",
  "definitions",
]);
/**
 * What the root's own code reads: the root becomes the parameter list, which keeps only its properties and
 * required names, so any other keyword there (an `anyOf` of required sets, say) is listed as dropped.
 */
const ROOT_HANDLED = new Set(["type", "description", "properties", "required", "$defs", "definitions"]);
const MAX_REF_DEPTH = 8;
const MAX_DESCRIPTION = 4096;

const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

export function cutInputSchema(input: unknown): CutSchema {
  const dropped: string[] = [];
  if (!isObject(input)) {
    return { parameters: { type: "object", properties: {}, required: [] }, dropped: ["(root): not an object schema"] };
  }
  const root = input;
  const ctx: Ctx = { root, dropped };
  const resolved = resolveRef(root, ctx, "(root)", 0);
  if (resolved.type !== undefined && resolved.type !== "object")
    dropped.push(`(root): type ${JSON.stringify(resolved.type)} is not "object"`);
  noteDropped(resolved, "(root)", ctx, ROOT_HANDLED);
  const { properties, required } = objectParts(resolved, "", ctx, 0);
  return { parameters: { type: "object", properties, required }, dropped };
}

type Ctx = { root: Json; dropped: string[] };

function objectParts(
  schema: Json,
  path: string,
  ctx: Ctx,
  depth: number,
): { properties: Record<string, ParameterSchema>; required: string[] } {
  const required = Array.isArray(schema.required)
    ? schema.required.filter((r): r is string => typeof r === "string")
    : [];
  const properties: Record<string, ParameterSchema> = {};
  const props = isObject(schema.properties) ? schema.properties : {};
  for (const [name, raw] of Object.entries(props)) {
    const at = path ? `${path}.${name}` : name;
    const cut = cutProperty(raw, at, ctx, depth + 1);
    if (cut) properties[name] = cut;
    else if (required.includes(name)) ctx.dropped.push(`${at}: required, kept without a type (checked by the server)`);
    else ctx.dropped.push(`${at}: optional property dropped (its type cannot be expressed)`);
  }
  return { properties, required };
}

function cutProperty(raw: unknown, path: string, ctx: Ctx, depth: number): ParameterSchema | null {
  if (!isObject(raw)) return null;
  const schema = resolveRef(raw, ctx, path, 0);
  const type = singleType(schema, path, ctx);
  if (!type) return null;
  noteDropped(schema, path, ctx);
  const out: ParameterSchema = { type };
  if (typeof schema.description === "string") out.description = schema.description.slice(0, MAX_DESCRIPTION);
  if (schema.default !== undefined) out.default = schema.default;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) out.enum = schema.enum.filter((v) => v !== null);
  else if (schema.const !== undefined) out.enum = [schema.const];
  if (out.enum?.length === 0) delete out.enum;
  if (type === "integer" || type === "number") {
    if (typeof schema.minimum === "number") out.minimum = schema.minimum;
    if (typeof schema.maximum === "number") out.maximum = schema.maximum;
  }
  if (type === "array" && schema.items !== undefined) {
    const items = Array.isArray(schema.items) ? null : cutProperty(schema.items, `${path}[]`, ctx, depth + 1);
    if (items) out.items = items;
    else ctx.dropped.push(`${path}.items: item schema cannot be expressed; items are not checked`);
  }
  if (type === "object" && isObject(schema.properties)) {
    if (depth > MAX_REF_DEPTH) {
      ctx.dropped.push(`${path}: nested too deep; kept as a free-form object`);
    } else {
      const parts = objectParts(schema, path, ctx, depth);
      out.properties = parts.properties;
      if (parts.required.length > 0) out.required = parts.required;
    }
  }
  return out;
}

/** The one type a schema allows, from `type`, a nullable type list, or `anyOf`/`oneOf`/`const`/`enum`. */
function singleType(schema: Json, path: string, ctx: Ctx): ParameterSchema["type"] | null {
  const t = schema.type;
  if (typeof t === "string") return TYPES.has(t) ? (t as ParameterSchema["type"]) : null;
  if (Array.isArray(t)) {
    const real = t.filter((x) => x !== "null");
    if (real.length === 1 && typeof real[0] === "string" && TYPES.has(real[0])) {
      if (real.length !== t.length)
        ctx.dropped.push(`${path}: null allowed by the server; sending null is treated as absent`);
      return real[0] as ParameterSchema["type"];
    }
    if (real.length === 2 && real.includes("integer") && real.includes("number")) return "number";
    return null;
  }
  for (const key of ["anyOf", "oneOf"] as const) {
    const branches = schema[key];
    if (!Array.isArray(branches)) continue;
    const types = new Set<string>();
    for (const b of branches) {
      if (!isObject(b)) return null;
      const branch = resolveRef(b, ctx, path, 0);
      if (branch.type === "null") continue;
      const bt = singleType(branch, path, { root: ctx.root, dropped: [] });
      if (!bt) return null;
      types.add(bt);
    }
    if (types.size !== 1) return null;
    ctx.dropped.push(`${path}: ${key} reduced to its one type (branch constraints are checked by the server)`);
    return [...types][0] as ParameterSchema["type"];
  }
  const sample = schema.const ?? (Array.isArray(schema.enum) ? schema.enum.find((v) => v !== null) : undefined);
  if (sample === undefined) return null;
  if (typeof sample === "string") return "string";
  if (typeof sample === "boolean") return "boolean";
  if (typeof sample === "number") return Number.isInteger(sample) ? "integer" : "number";
  return null;
}

function noteDropped(schema: Json, path: string, ctx: Ctx, handled: ReadonlySet<string> = HANDLED): void {
  for (const key of Object.keys(schema)) {
    if (handled.has(key) || ANNOTATIONS.has(key)) continue;
    if (key === "additionalProperties" && schema[key] === false) {
      ctx.dropped.push(`${path}: additionalProperties: false (unknown arguments are dropped before the call anyway)`);
      continue;
    }
    ctx.dropped.push(`${path}: '${key}' not supported by the validator (checked by the server)`);
  }
  if (
    (schema.type === "string" || schema.type === undefined) &&
    (schema.minimum !== undefined || schema.maximum !== undefined)
  )
    ctx.dropped.push(`${path}: minimum/maximum on a non-number ignored`);
}

/** Follows a local `$ref` (with any sibling keywords kept); a ref we cannot follow leaves `{}`. */
function resolveRef(schema: Json, ctx: Ctx, path: string, depth: number): Json {
  const ref = schema.$ref;
  if (typeof ref !== "string") return schema;
  const { $ref: _ref, ...siblings } = schema;
  const m = ref.match(/^#\/(\$defs|definitions)\/(.+)$/);
  const target = m ? (ctx.root[m[1]!] as Json | undefined)?.[decodePointer(m[2]!)] : ref === "#" ? ctx.root : undefined;
  if (!isObject(target) || depth >= MAX_REF_DEPTH) {
    ctx.dropped.push(`${path}: $ref ${ref} cannot be followed`);
    return siblings;
  }
  return { ...resolveRef(target, ctx, path, depth + 1), ...siblings };
}

const decodePointer = (part: string) => part.replaceAll("~1", "/").replaceAll("~0", "~");
