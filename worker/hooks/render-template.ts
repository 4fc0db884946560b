/**
 * A hook's template: `{{path.to.field}}` replaced by that field of the payload (`alerts.0.labels.x`
 * indexes arrays), `{{@event}}`, `{{@hook}}` and `{{@delivery}}` by the request's own facts. Nothing
 * else is evaluated — no code, no partials, no HTML escaping (the result is a message to a model, not a
 * page) — so a payload cannot make the template do anything but show its values. A missing field is
 * empty; an object or array is shown as JSON.
 */

const PLACEHOLDER = /\{\{\s*(@?[A-Za-z0-9_$-]+(?:\.[A-Za-z0-9_$-]+)*)\s*\}\}/g;
const MAX_VALUE_CHARS = 2000;

function lookup(root: unknown, path: string): unknown {
  let value: unknown = root;
  for (const key of path.split(".")) {
    if (value === null || typeof value !== "object" || !Object.hasOwn(value, key)) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

function show(value: unknown): string {
  if (value === undefined || value === null) return "";
  const text = typeof value === "object" ? JSON.stringify(value) : String(value);
  return text.length > MAX_VALUE_CHARS ? `${text.slice(0, MAX_VALUE_CHARS)}…` : text;
}

export function renderTemplate(template: string, payload: unknown, facts: Record<string, string>): string {
  return template.replace(PLACEHOLDER, (_m, path: string) =>
    path.startsWith("@") ? (facts[path.slice(1)] ?? "") : show(lookup(payload, path)),
  );
}
