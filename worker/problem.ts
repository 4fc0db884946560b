import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { Problem } from "../protocol/index.js";

/** RFC 9457 problem+json: every error the API gives has this shape. */
export function problem(
  c: Context,
  status: ContentfulStatusCode,
  title: string,
  detail?: string,
  extra: Partial<Problem> = {},
  headers: Record<string, string> = {},
): Response {
  const body: Problem = { type: "about:blank", title, status, ...(detail ? { detail } : {}), ...extra };
  return c.body(JSON.stringify(body), status, { "content-type": "application/problem+json", ...headers });
}
