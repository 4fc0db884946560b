// webfetch against a local HTTP server: allowlist, HTML to text, redirects, size cap.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LocalServer, startServer } from "./local-http.js";
import { removeTempDirs, runTool, tempDir } from "./skill-runner.js";

const PAGE = `<!doctype html><html><head><title>T</title><style>.x{color:red}</style><script>var hidden = "script text";</script></head>
<body><h1>Greenhouse report</h1><p>Humidity is <b>61%</b>.</p><a href="/more">More data</a></body></html>`;

let server: LocalServer;
let workspace: string;

beforeAll(async () => {
  workspace = tempDir("webfetch");
  server = await startServer((url, res) => {
    if (url.pathname === "/page") {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(PAGE);
    } else if (url.pathname === "/big") {
      res.writeHead(200, { "content-type": "text/plain" }).end("0123456789".repeat(10_000));
    } else if (url.pathname === "/hop") {
      res.writeHead(302, { location: "/page" }).end();
    } else if (url.pathname === "/away") {
      res.writeHead(302, { location: "http://forbidden.example.test/" }).end();
    } else {
      res.writeHead(404, { "content-type": "text/plain" }).end("no such page");
    }
  });
});

afterAll(async () => {
  await server.close();
  removeTempDirs();
});

const fetchUrl = (url: string, env: Record<string, string | undefined>) =>
  runTool("desktop-tools", "dt-webfetch", { url }, { workspace, env });

describe("webfetch", () => {
  it("returns an allowed HTML page as readable text", async () => {
    const run = await fetchUrl(`${server.origin}/page`, { EDGELOOP_WEBFETCH_ALLOW: "example.com,127.0.0.1" });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("Status: 200");
    expect(run.stdout).toContain("Greenhouse report");
    expect(run.stdout).toContain("Humidity is 61%.");
    expect(run.stdout).toContain(`More data [${server.origin}/more]`);
    expect(run.stdout).not.toContain("<b>");
    expect(run.stdout).not.toContain("script text");
    expect(run.stdout).not.toContain("color:red");
  });

  it("is denied with 77 when no allowlist is configured", async () => {
    const before = server.requests.length;
    const run = await fetchUrl(`${server.origin}/page`, { EDGELOOP_WEBFETCH_ALLOW: undefined });
    expect(run.code).toBe(77);
    expect(run.stderr).toMatch(/EDGELOOP_WEBFETCH_ALLOW/);
    expect(server.requests.length).toBe(before);
  });

  it("is denied with 77 for a host not on the list", async () => {
    const run = await fetchUrl(`${server.origin}/page`, { EDGELOOP_WEBFETCH_ALLOW: "example.com" });
    expect(run.code).toBe(77);
  });

  it("allows any host with *", async () => {
    const run = await fetchUrl(`${server.origin}/page`, { EDGELOOP_WEBFETCH_ALLOW: "*" });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("Greenhouse report");
  });

  it("follows redirects within the allowlist and refuses ones leaving it", async () => {
    const ok = await fetchUrl(`${server.origin}/hop`, { EDGELOOP_WEBFETCH_ALLOW: "127.0.0.1" });
    expect(ok.code).toBe(0);
    expect(ok.stdout).toContain(`URL: ${server.origin}/page`);
    const away = await fetchUrl(`${server.origin}/away`, { EDGELOOP_WEBFETCH_ALLOW: "127.0.0.1" });
    expect(away.code).toBe(77);
    expect(away.stderr).toContain("forbidden.example.test");
  });

  it("cuts the response at EDGELOOP_WEBFETCH_MAX_BYTES and says so", async () => {
    const run = await fetchUrl(`${server.origin}/big`, {
      EDGELOOP_WEBFETCH_ALLOW: "127.0.0.1",
      EDGELOOP_WEBFETCH_MAX_BYTES: "1000",
    });
    expect(run.code).toBe(0);
    const body = run.stdout.split("\n\n")[1] ?? "";
    expect(body).toBe("0123456789".repeat(100));
    expect(run.stdout).toContain("[truncated: the response was cut at 1000 bytes");
  });

  it("reports an HTTP error status as a failure", async () => {
    const run = await fetchUrl(`${server.origin}/missing`, { EDGELOOP_WEBFETCH_ALLOW: "127.0.0.1" });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/HTTP 404/);
  });

  it("rejects non-http schemes with 64", async () => {
    const run = await fetchUrl("file:///etc/passwd", { EDGELOOP_WEBFETCH_ALLOW: "*" });
    expect(run.code).toBe(64);
    expect(run.stdout).toBe("");
  });
});
