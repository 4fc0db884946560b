// browser: headless chromium against a page served from this process.

import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { systemTool } from "../../helpers/system-tools.js";
import { type LocalServer, startServer } from "./local-http.js";
import { type ContentResult, removeTempDirs, runTool, tempDir } from "./skill-runner.js";

// Served as 127.0.0.1 (allowed); the second image names the same server as "localhost", a host
// outside the allowlist, so the server itself can tell whether the browser obeyed the list.
const page = (port: number) => `<!doctype html><html><head><title>Sensor dashboard</title></head><body>
<h1>Pump status</h1><p id="late"></p><p style="display:none">invisible words</p>
<img src="/allowed.png"><img src="http://localhost:${port}/blocked.png">
<script>setTimeout(() => { document.getElementById("late").textContent = "rendered by script"; }, 50);</script>
</body></html>`;

let server: LocalServer;
let workspace: string;

beforeAll(async () => {
  workspace = tempDir("browser");
  server = await startServer((url, res, headers) => {
    if (url.pathname.endsWith(".png")) {
      res.writeHead(404).end();
      return;
    }
    const port = Number((headers.host ?? "").split(":")[1]);
    res.writeHead(200, { "content-type": "text/html" }).end(page(port));
  });
});

afterAll(async () => {
  await server.close();
  removeTempDirs();
});

// The refusals below never start a browser, so they name none; the test that renders needs the real one.
const browse = (url: string, allow: string | undefined, extra: Record<string, unknown> = {}, chromium?: string) =>
  runTool(
    "desktop-tools",
    "dt-browser",
    { url, ...extra },
    { workspace, env: { EDGELOOP_WEBFETCH_ALLOW: allow, EDGELOOP_CHROMIUM: chromium, EDGELOOP_TIMEOUT_MS: "20000" } },
  );

describe("browser", () => {
  it("returns title, visible text and a PNG screenshot", async () => {
    const run = await browse(`${server.origin}/`, "127.0.0.1", { wait_ms: 300 }, systemTool("chromium"));
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    const parsed = JSON.parse(run.stdout) as ContentResult;
    expect(parsed.result).toContain("Title: Sensor dashboard");
    const text = parsed.content.find((b) => b.type === "text");
    expect(text?.type === "text" && text.text).toContain("Pump status");
    expect(text?.type === "text" && text.text).toContain("rendered by script");
    expect(text?.type === "text" && text.text).not.toContain("invisible words");
    const shot = parsed.content.find((b) => b.type === "image");
    if (shot?.type !== "image") throw new Error("no screenshot");
    expect(shot.mimeType).toBe("image/png");
    const meta = await sharp(Buffer.from(shot.data, "base64")).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(["png", 1280, 800]);
    const paths = server.requests.map((r) => r.url);
    expect(paths).toContain("/allowed.png");
    expect(paths).not.toContain("/blocked.png");
  }, 30_000);

  it("is denied with 77 when the host is not allowed (no browser started)", async () => {
    const run = await browse(`${server.origin}/`, "example.com");
    expect(run.code).toBe(77);
    const unset = await browse(`${server.origin}/`, undefined);
    expect(unset.code).toBe(77);
  });
});
