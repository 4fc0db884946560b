import { parseJson } from "@edgeloop/protocol";
import type { Context } from "hono";
import type { z } from "zod";
import { problemResponse } from "../runtime/problem.js";

export const DEFAULT_MAX_BODY_BYTES = 256 * 1024;

type BodyResult<T> = { ok: true; value: T } | { ok: false; response: Response };

/**
 * The raw body as text, read in chunks and abandoned as soon as it passes `maxBytes`, so a huge
 * body is neither buffered nor trusted on its Content-Length. Signatures are over these bytes.
 */
export async function readRawBody(c: Context, maxBytes = DEFAULT_MAX_BODY_BYTES): Promise<BodyResult<string>> {
  const tooLarge = () => ({
    ok: false as const,
    response: problemResponse(413, "Payload too large", `body over ${maxBytes} bytes`),
  });
  if (Number(c.req.header("content-length") ?? "0") > maxBytes) return tooLarge();
  const stream = c.req.raw.body;
  if (!stream) return { ok: true, value: "" };
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel();
      return tooLarge();
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(total);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return { ok: true, value: new TextDecoder().decode(bytes) };
}

/** Validate JSON text against a schema; the failure is a ready 400 problem naming the field. */
export function parseJsonBody<T>(schema: z.ZodType<T>, text: string): BodyResult<T> {
  const parsed = parseJson(schema, text);
  if (parsed.ok) return parsed;
  const malformed =
    parsed.issues.length === 1 && parsed.issues[0]!.path === "" && parsed.error.startsWith("malformed JSON");
  return {
    ok: false,
    response: problemResponse(400, malformed ? "Malformed JSON" : "Invalid request body", parsed.error, {
      errors: parsed.issues,
    }),
  };
}

/** Read and validate a JSON body in one go. */
export async function readJsonBody<T>(
  c: Context,
  schema: z.ZodType<T>,
  maxBytes = DEFAULT_MAX_BODY_BYTES,
): Promise<BodyResult<T>> {
  const raw = await readRawBody(c, maxBytes);
  return raw.ok ? parseJsonBody(schema, raw.value) : raw;
}
