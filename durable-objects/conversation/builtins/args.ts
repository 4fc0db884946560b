import { parseValue } from "@edgeloop/protocol";
import type { z } from "zod";
import { doneError } from "./outcome.js";
import type { BuiltinResult } from "./types.js";

export type ArgsParse<T> = { ok: true; value: T } | { ok: false; result: BuiltinResult };

/**
 * The loop core validates arguments against the tool's JSON schema before a built-in runs; this
 * second check types them for the code and turns anything that slipped through (a shell that
 * skipped validation, a replayed call) into an `invalid_params` error naming the field.
 */
export function parseArgs<T>(tool: string, schema: z.ZodType<T>, args: Record<string, unknown>): ArgsParse<T> {
  const parsed = parseValue(schema, args);
  if (parsed.ok) return { ok: true, value: parsed.value };
  return { ok: false, result: doneError(tool, `invalid arguments: ${parsed.error}`, "invalid_params") };
}
