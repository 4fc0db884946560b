import { describe, expect, it } from "vitest";
import { app } from "../../worker/app.js";
import { SESSION_COOKIE } from "../../worker/middleware/dashboard-session.js";
import { openApiPath } from "../../worker/openapi/openapi-document.js";
import { call } from "./support/front-door.js";

type Doc = {
  openapi: string;
  info: { title: string; version: string };
  paths: Record<string, Record<string, { summary: string; responses: Record<string, unknown> }>>;
  components: { securitySchemes: Record<string, unknown> };
};

const METHODS = ["get", "post", "put", "patch", "delete"];

/** `METHOD /path` of every handler the Hono app registers; middleware (`ALL …`) is not a route. */
function registeredRoutes(): Set<string> {
  return new Set(
    app.routes
      .filter((r) => METHODS.includes(r.method.toLowerCase()))
      .map((r) => `${r.method.toUpperCase()} ${openApiPath(r.path)}`),
  );
}

function documentedRoutes(doc: Doc): Set<string> {
  const out = new Set<string>();
  for (const [path, ops] of Object.entries(doc.paths))
    for (const method of Object.keys(ops)) out.add(`${method.toUpperCase()} ${path}`);
  return out;
}

async function fetchDocument(): Promise<{ res: Response; doc: Doc }> {
  const res = await call("/openapi.json");
  return { res, doc: (await res.clone().json()) as Doc };
}

describe("GET /openapi.json", () => {
  it("is public and an OpenAPI 3.1 document", async () => {
    const { res, doc } = await fetchDocument();
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("application/json");
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.info.title).toBe("edgeloop");
    expect(Object.keys(doc.components.securitySchemes)).toContain("bearer");
    expect(doc.components.securitySchemes.adminSession).toMatchObject({ in: "cookie", name: SESSION_COOKIE });
    for (const ops of Object.values(doc.paths))
      for (const op of Object.values(ops)) {
        expect(op.summary.length).toBeGreaterThan(0);
        expect(Object.keys(op.responses)).toContain("default");
      }
  });

  it("describes the message request with the schema the route validates", async () => {
    const { doc } = await fetchDocument();
    const post = doc.paths["/v1/messages"]!.post as unknown as {
      requestBody: { content: { "application/json": { schema: { properties: Record<string, unknown> } } } };
    };
    const fields = Object.keys(post.requestBody.content["application/json"].schema.properties);
    expect(fields).toEqual(expect.arrayContaining(["agent_id", "pool", "text", "options", "reply_url"]));
  });

  it("lists exactly the routes the app registers", async () => {
    const { doc } = await fetchDocument();
    const registered = registeredRoutes();
    const documented = documentedRoutes(doc);
    expect(registered.size).toBeGreaterThan(30);
    expect(
      [...registered].filter((r) => !documented.has(r)),
      "routes missing from the document",
    ).toEqual([]);
    expect(
      [...documented].filter((r) => !registered.has(r)),
      "documented routes the app lacks",
    ).toEqual([]);
  });
});
