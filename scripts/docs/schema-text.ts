/**
 * JSON Schema (as `z.toJSONSchema` writes it) in the few words a reference table needs: a type, the
 * values or range it allows, its default. Pure; shared by the configuration and API references.
 */

export type JsonSchema = {
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  format?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  pattern?: string;
  default?: unknown;
  description?: string;
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  properties?: Record<string, JsonSchema>;
  additionalProperties?: JsonSchema | boolean;
  required?: string[];
};

const code = (v: unknown) => `\`${typeof v === "string" ? v : JSON.stringify(v)}\``;

/** `integer`, `string (URL)`, `array of string`, `"a" \| "b"` … */
export function typeText(s: JsonSchema): string {
  const variants = s.anyOf ?? s.oneOf;
  if (variants) {
    const nonNull = variants.filter((v) => v.type !== "null");
    const text = [...new Set(nonNull.map(typeText))].join(" or ");
    return nonNull.length < variants.length ? `${text} or null` : text;
  }
  if (s.const !== undefined) return code(s.const);
  if (s.enum) return "enum";
  if (Array.isArray(s.type)) return s.type.join(" or ");
  if (s.type === "array") return s.items ? `array of ${typeText(s.items)}` : "array";
  if (s.type === "string" && s.format === "uri") return "URL";
  if (s.type === "object" && !s.properties && s.additionalProperties && s.additionalProperties !== true)
    return `map of ${typeText(s.additionalProperties)}`;
  return s.type ?? "any";
}

/** What values it allows beyond its type: the enum's values, a numeric range, a length, a pattern. */
export function allowedText(s: JsonSchema): string {
  if (s.enum) return s.enum.map(code).join(", ");
  const parts: string[] = [];
  const min = s.minimum ?? s.exclusiveMinimum;
  const max = s.maximum ?? s.exclusiveMaximum;
  if (min !== undefined && max !== undefined) parts.push(`${min}–${max}`);
  else if (min !== undefined) parts.push(`≥ ${min}`);
  else if (max !== undefined) parts.push(`≤ ${max}`);
  if (s.minLength === 1 && s.maxLength === undefined) parts.push("non-empty");
  else if (s.minLength !== undefined || s.maxLength !== undefined)
    parts.push(`${s.minLength ?? 0}–${s.maxLength ?? "∞"} characters`);
  if (s.minItems !== undefined || s.maxItems !== undefined) parts.push(`${s.minItems ?? 0}–${s.maxItems ?? "∞"} items`);
  if (s.pattern) parts.push(`matches ${code(s.pattern)}`);
  return parts.join(", ");
}

/** The default, or "" when there is none (an empty string default means "unset"). */
export function defaultText(s: JsonSchema): string {
  if (s.default === undefined || s.default === "") return "";
  return code(s.default);
}

/** A Markdown table cell: no line breaks, pipes escaped (they split cells even inside code spans). */
export const cell = (text: string) => (text === "" ? "—" : text.replace(/\r?\n/g, " ").replace(/\|/g, "\\|"));

/** A Markdown table with its columns padded to one width, as the formatter (Biome) lays tables out. */
export function table(header: string[], rows: string[][]): string {
  const body = rows.map((r) => r.map(cell));
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((r) => r[i]!.length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(" | ")} |`;
  return [line(header), line(widths.map((w) => "-".repeat(w))), ...body.map(line)].join("\n");
}
