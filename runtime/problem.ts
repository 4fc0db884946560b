import type { Problem } from "@edgeloop/protocol";
import type { z } from "zod";

/**
 * An RFC 9457 problem+json response: every error the API gives has this shape, whether a route or
 * a Durable Object's own `fetch` answers it.
 */
export function problemResponse(
  status: number,
  title: string,
  detail?: string,
  extra: Partial<Problem> = {},
  headers: Record<string, string> = {},
): Response {
  const body: Problem = { type: "about:blank", title, status, ...(detail ? { detail } : {}), ...extra };
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/problem+json", ...headers },
  });
}

/** 400 for a query string that does not parse: each issue named by its field, also as `errors`. */
export function invalidQuery(error: z.ZodError): Response {
  const errors = error.issues.map((i) => ({ path: i.path.join("."), message: i.message }));
  return problemResponse(400, "Invalid query", errors.map((e) => `${e.path}: ${e.message}`).join("; "), { errors });
}
