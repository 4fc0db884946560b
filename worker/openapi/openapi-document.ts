import { Problem } from "@edgeloop/protocol";
import { z } from "zod";
import type { Route, RouteAuth, RouteResponse } from "./route.js";
import { ROUTES } from "./route-catalogue.js";

/**
 * The worker's HTTP API as an OpenAPI 3.1 document, built from the route catalogue and the zod
 * schemas the routes validate with (OpenAPI 3.1 schemas are JSON Schema 2020-12, which
 * `z.toJSONSchema` writes). Pure: served at `GET /openapi.json` and rendered into docs/api.md.
 */

type JsonSchema = Record<string, unknown>;
type Operation = Record<string, unknown>;

export const OPENAPI_VERSION = "3.1.0";

/** A schema as it appears in the document: requests as clients send them, responses as they arrive. */
export function jsonSchema(schema: z.ZodType, io: "input" | "output"): JsonSchema {
  const { $schema: _, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: "any" }) as JsonSchema;
  return rest;
}

/** `/v1/conversations/:id` → `/v1/conversations/{id}` */
export const openApiPath = (honoPath: string) => honoPath.replace(/:([A-Za-z0-9_]+)/g, "{$1}");

const SECURITY_SCHEMES = {
  bearer: {
    type: "http",
    scheme: "bearer",
    description: "API_TOKEN, ADMIN_TOKEN or a scoped key (`POST /v1/keys`), as the route says",
  },
  adminSession: {
    type: "apiKey",
    in: "cookie",
    // worker/middleware/dashboard-session.ts SESSION_COOKIE (test/worker/openapi.test.ts holds them equal)
    name: "__Host-edgeloop_session",
    description: "the dashboard's session (log in with ADMIN_TOKEN); writes also need `X-Edgeloop-CSRF: 1`",
  },
  webhookSignature: {
    type: "apiKey",
    in: "header",
    name: "X-Webhook-Signature",
    description: "an hmac or Standard Webhooks signature over the body (WEBHOOK_SECRETS, docs/protocol.md)",
  },
  deviceToken: { type: "http", scheme: "bearer", description: "a device token (DEVICE_TOKENS or issued)" },
};

/** The auth requirement in words, for the document's `x-edgeloop-auth` and docs/api.md. */
export function authText(auth: RouteAuth): string {
  switch (auth.kind) {
    case "public":
      return "none";
    case "admin":
      return "admin token";
    case "device":
      return "device token";
    case "message":
      return "API token, key (`messages`) or a webhook signature";
    case "api":
      return `API token, or a key (\`${auth.scope}\`)`;
  }
}

function security(auth: RouteAuth): Record<string, string[]>[] | undefined {
  switch (auth.kind) {
    case "public":
      return [];
    case "admin":
      return [{ bearer: [] }, { adminSession: [] }];
    case "device":
      return [{ deviceToken: [] }];
    case "message":
      return [{ bearer: [] }, { webhookSignature: [] }, { adminSession: [] }];
    case "api":
      return [{ bearer: [] }];
  }
}

function response(r: RouteResponse): Record<string, unknown> {
  if (r.problem)
    return {
      description: r.description,
      content: { "application/problem+json": { schema: jsonSchema(Problem, "output") } },
    };
  if (r.mediaType) return { description: r.description, content: { [r.mediaType]: {} } };
  if (!r.schema) return { description: r.description };
  return { description: r.description, content: { "application/json": { schema: jsonSchema(r.schema, "output") } } };
}

function parameters(route: Route): Record<string, unknown>[] {
  const inPath = [...route.path.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => ({
    name: m[1],
    in: "path",
    required: true,
    schema: { type: "string" },
  }));
  const query = route.query ? (jsonSchema(route.query, "input") as { properties?: Record<string, JsonSchema> }) : {};
  const required = new Set((route.query && (jsonSchema(route.query, "input").required as string[])) ?? []);
  const inQuery = Object.entries(query.properties ?? {}).map(([name, schema]) => ({
    name,
    in: "query",
    required: required.has(name),
    schema,
  }));
  return [...inPath, ...inQuery];
}

const ADMIN_TOKEN_REQUIRED = {
  description: "a valid API token or key, but this route needs the admin token (ADMIN_TOKEN)",
  content: { "application/problem+json": { schema: jsonSchema(Problem, "output") } },
};

function operation(route: Route): Operation {
  const responses: Record<string, unknown> = {};
  for (const [status, r] of Object.entries(route.responses)) responses[status] = response(r);
  // A valid API token or key on an admin route is told which token it needs (worker/middleware/authorize.ts).
  if (route.auth.kind === "admin") responses["403"] = ADMIN_TOKEN_REQUIRED;
  responses.default = { $ref: "#/components/responses/Problem" };
  const params = parameters(route);
  return {
    operationId: operationId(route),
    summary: route.summary,
    tags: [route.tag],
    security: security(route.auth),
    "x-edgeloop-auth": authText(route.auth),
    ...(params.length ? { parameters: params } : {}),
    ...(route.body
      ? {
          requestBody: {
            required: true,
            content: { "application/json": { schema: jsonSchema(route.body, "input") } },
          },
        }
      : {}),
    responses,
  };
}

/** `POST /v1/conversations/:id/cancel` → `postV1ConversationsIdCancel` */
function operationId(route: Route): string {
  const words = route.path.split(/[^A-Za-z0-9]+/).filter(Boolean);
  const camel = words.map((w) => w[0]!.toUpperCase() + w.slice(1)).join("");
  return route.method.toLowerCase() + (camel || "Root");
}

export function openApiDocument(routes: Route[] = ROUTES, version = "0.1.0"): Record<string, unknown> {
  const paths: Record<string, Record<string, Operation>> = {};
  for (const route of routes) {
    const path = openApiPath(route.path);
    paths[path] = { ...paths[path], [route.method.toLowerCase()]: operation(route) };
  }
  return {
    openapi: OPENAPI_VERSION,
    info: {
      title: "edgeloop",
      version,
      description:
        "LLM tool loops on Cloudflare Workers, tools executed on your own devices. Errors are " +
        "`application/problem+json` (RFC 9457) naming the failing field.",
    },
    paths,
    components: {
      securitySchemes: SECURITY_SCHEMES,
      responses: {
        Problem: {
          description: "an error (RFC 9457 problem details)",
          content: { "application/problem+json": { schema: jsonSchema(Problem, "output") } },
        },
      },
    },
  };
}
