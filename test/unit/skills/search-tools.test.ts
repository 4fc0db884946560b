// websearch and codesearch against a local stand-in for the Brave Search API.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LocalServer, startServer } from "./local-http.js";
import { removeTempDirs, runTool, tempDir } from "./skill-runner.js";

const API_KEY = "test-brave-key";
let server: LocalServer;
let workspace: string;

beforeAll(async () => {
  workspace = tempDir("search");
  server = await startServer((url, res, headers) => {
    if (url.pathname !== "/res/v1/web/search") {
      res.writeHead(404).end();
      return;
    }
    if (headers["x-subscription-token"] !== API_KEY) {
      res.writeHead(401, { "content-type": "application/json" }).end('{"error":"invalid token"}');
      return;
    }
    const q = url.searchParams.get("q") ?? "";
    const count = Number(url.searchParams.get("count"));
    const results = Array.from({ length: 8 }, (_, i) => ({
      title: `Result ${i + 1} for <strong>${q.split(" ")[0]}</strong>`,
      url: `https://docs.example.test/${i + 1}`,
      description: `Snippet &amp; details ${i + 1}`,
    })).slice(0, count);
    res
      .writeHead(200, { "content-type": "application/json" })
      .end(JSON.stringify({ type: "search", web: { results } }));
  });
});

afterAll(async () => {
  await server.close();
  removeTempDirs();
});

const search = (binary: string, params: Record<string, unknown>, key: string | undefined) =>
  runTool("desktop-tools", binary, params, {
    workspace,
    env: { EDGELOOP_BRAVE_API_KEY: key, EDGELOOP_BRAVE_BASE_URL: server.origin },
  });

describe("websearch", () => {
  it("queries the Brave API with the subscription token and formats results", async () => {
    const before = server.requests.length;
    const run = await search("dt-websearch", { query: "raspberry pi gpio", count: 2 }, API_KEY);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe(
      "1. Result 1 for raspberry\n   https://docs.example.test/1\n   Snippet & details 1\n\n2. Result 2 for raspberry\n   https://docs.example.test/2\n   Snippet & details 2\n",
    );
    const request = server.requests[before];
    expect(request?.headers["x-subscription-token"]).toBe(API_KEY);
    const sent = new URL(request?.url ?? "", server.origin);
    expect(sent.searchParams.get("q")).toBe("raspberry pi gpio");
    expect(sent.searchParams.get("count")).toBe("2");
  });

  it("exits 77 without an API key and makes no request", async () => {
    const before = server.requests.length;
    const run = await search("dt-websearch", { query: "anything" }, undefined);
    expect(run.code).toBe(77);
    expect(run.stderr).toBe("websearch is not configured: set EDGELOOP_BRAVE_API_KEY\n");
    expect(server.requests.length).toBe(before);
  });

  it("reports a rejected key and an unreachable API as failures", async () => {
    const rejected = await search("dt-websearch", { query: "x" }, "wrong-key");
    expect(rejected.code).toBe(1);
    expect(rejected.stderr).toMatch(/HTTP 401/);
    const down = await runTool(
      "desktop-tools",
      "dt-websearch",
      { query: "x" },
      { workspace, env: { EDGELOOP_BRAVE_API_KEY: API_KEY, EDGELOOP_BRAVE_BASE_URL: "http://127.0.0.1:9" } },
    );
    expect(down.code).toBe(1);
    expect(down.stderr).toMatch(/request to http:\/\/127\.0\.0\.1:9\/res\/v1\/web\/search/);
  });
});

describe("codesearch", () => {
  it("restricts the query to programming sites and formats results", async () => {
    const before = server.requests.length;
    const run = await search("dt-codesearch", { query: "Array.prototype.flatMap" }, API_KEY);
    expect(run.code).toBe(0);
    expect(run.stdout.match(/^\d+\. /gm)).toHaveLength(5);
    const sent = new URL(server.requests[before]?.url ?? "", server.origin).searchParams.get("q") ?? "";
    expect(sent.startsWith("Array.prototype.flatMap ")).toBe(true);
    expect(sent).toContain("site:stackoverflow.com");
    expect(sent).toContain("site:developer.mozilla.org");
    expect(sent.length).toBeLessThanOrEqual(400);
  });

  it("exits 77 without an API key", async () => {
    const run = await search("dt-codesearch", { query: "anything" }, undefined);
    expect(run.code).toBe(77);
    expect(run.stderr).toMatch(/codesearch is not configured: set EDGELOOP_BRAVE_API_KEY/);
  });
});
