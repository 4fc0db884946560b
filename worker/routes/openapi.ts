import { Hono } from "hono";
import type { Env } from "../env.js";
import { openApiDocument } from "../openapi/openapi-document.js";

/** `GET /openapi.json`: the API's OpenAPI 3.1 document, public like the API's docs. Built once per isolate. */
export const openapi = new Hono<{ Bindings: Env }>();

let document: Record<string, unknown> | undefined;

openapi.get("/", (c) => {
  document ??= openApiDocument();
  return c.json(document);
});
