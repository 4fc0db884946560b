/**
 * One JSON object per line, so `wrangler tail` output can be filtered by any field.
 *
 * Each level goes to the console method of the same name, so the level the runtime records for the
 * line (Workers Logs, `wrangler tail`, the dev server) agrees with the line's own `level` field.
 */
export function log(
  level: "debug" | "info" | "warn" | "error",
  msg: string,
  fields: Record<string, unknown> = {},
): void {
  const line = JSON.stringify({ ts: new Date().toISOString(), level, msg, ...fields });
  if (level === "error") console.error(line);
  else if (level === "warn") console.warn(line);
  else if (level === "info") console.info(line);
  else console.debug(line);
}
