/**
 * `npm run dev` as in a fresh clone: no .dev.vars settings needed, no model configured. It prints
 * throwaway tokens and a send line that works as printed (the bundled model answers), and honours
 * PORT.
 */
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../helpers/free-port.js";
import { type Child, REPO_ROOT, startChild } from "../helpers/processes.js";
import { waitUntil } from "../helpers/wait.js";

let dev: Child;
let port: number;

beforeAll(async () => {
  port = await freePort();
  dev = startChild(join(REPO_ROOT, "node_modules/.bin/tsx"), ["scripts/dev.ts"], {
    name: "npm run dev",
    env: { PORT: String(port), OPENAI_BASE_URL: "", API_TOKEN: "", ADMIN_TOKEN: "" },
  });
  await waitUntil(
    async () => (await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => null))?.status ?? 0,
    (status) => status === 200,
    { timeoutMs: 90_000, what: `npm run dev to answer on PORT ${port}:\n${dev?.output()}` },
  );
});

afterAll(async () => {
  await dev?.stop("SIGTERM");
});

describe("npm run dev", () => {
  it("serves on PORT with printed tokens and the bundled model, and its send line works as printed", () => {
    const out = dev.output();
    expect(out).toContain(`on http://127.0.0.1:${port}`);
    expect(out).toContain("bundled scripted model");
    const line = out
      .split("\n")
      .find((l) => l.trimStart().startsWith("Send "))!
      .trimStart()
      .slice("Send".length)
      .trim();
    expect(line).toMatch(/--token \S+$/);
    const run = spawnSync("sh", ["-c", line], { cwd: REPO_ROOT, encoding: "utf8", timeout: 60_000 });
    expect(run.status, `${run.stdout}\n${run.stderr}`).toBe(0);
    expect(run.stdout).toContain("hi");
    expect(run.stdout).toContain("completed");
  });
});
