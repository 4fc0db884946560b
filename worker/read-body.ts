import type { Context } from "hono";
import type { z } from "zod";
import { parseJson } from "../protocol/index.js";
import { problem } from "./problem.js";

const MAX_BODY_BYTES = 256 * 1024;

/** Read and validate a JSON body; the failure is a ready 4xx problem response naming the field. */
export async function readJsonBody<T>(c: Context, schema: z.ZodType<T>): Promise<{ ok: true; value: T } | { ok: false; response: Response }> {
  const declared = Number(c.req.header("content-length") ?? "0");
  if (declared > MAX_BODY_BYTES) {
    return { ok: false, response: problem(c, 413, "Payload too large", `body over ${MAX_BODY_BYTES} bytes`) };
  }
  const text = await c.req.text();
  if (text.length > MAX_BODY_BYTES) {
    return { ok: false, response: problem(c, 413, "Payload too large", `body over ${MAX_BODY_BYTES} bytes`) };
  }
  const parsed = parseJson(schema, text);
  if (parsed.ok) return parsed;
  const malformed = parsed.issues.length === 1 && parsed.issues[0]!.path === "" && parsed.error.startsWith("malformed JSON");
  return {
    ok: false,
    response: problem(c, 400, malformed ? "Malformed JSON" : "Invalid request body", parsed.error, { errors: parsed.issues }),
  };
}
