/**
 * Secrets out of audit rows: applied to a tool call's parameters before they are stored. Keys
 * that name a secret lose their value; values that look like credentials (bearer tokens, `sk-…`
 * API keys, our own device tokens, webhook secrets) are masked wherever they appear in a string,
 * so `curl -H "Authorization: Bearer abc"` inside a bash command is caught too.
 */
export const REDACTED = "[REDACTED]";

/** Normalised (lower case, letters and digits only) key fragments that mark a secret. */
const SECRET_KEY_PARTS = [
  "token",
  "password",
  "passwd",
  "secret",
  "apikey",
  "authorization",
  "credential",
  "privatekey",
  "cookie",
  "accesskey",
  "sessionid",
];

const VALUE_PATTERNS: [RegExp, string][] = [
  [/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{6,}/gi, `$1 ${REDACTED}`],
  [/\bsk-[A-Za-z0-9_-]{8,}/g, `sk-${REDACTED}`],
  [/\b(edl|whsec|ghp|gho|github_pat|xox[abprs])_[A-Za-z0-9_+/=-]{8,}/g, `$1_${REDACTED}`],
];

export function isSecretKey(key: string): boolean {
  const k = key.toLowerCase().replace(/[^a-z0-9]/g, "");
  return SECRET_KEY_PARTS.some((part) => k.includes(part));
}

export function redactString(value: string): string {
  let out = value;
  for (const [pattern, replacement] of VALUE_PATTERNS) out = out.replace(pattern, replacement);
  return out;
}

export function redact(value: unknown, depth = 0): unknown {
  if (depth > 20) return REDACTED; // deeper than any real tool call: do not walk it
  if (typeof value === "string") return redactString(value);
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1));
  if (value && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value))
      out[k] = isSecretKey(k) && v !== null && v !== undefined ? REDACTED : redact(v, depth + 1);
    return out;
  }
  return value;
}
