/**
 * `npm start` as a new user meets it: the script the README names (scripts/start.ts, with no LLM
 * configured, on a free port and a throwaway state dir) runs its sample conversation, then the
 * dashboard URL and admin token it prints log in, and the CLI line it prints works exactly as printed.
 */
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../helpers/free-port.js";
import { type Child, REPO_ROOT, startChild } from "../helpers/processes.js";
import { tempDir } from "../helpers/temp-dir.js";
import { waitUntil } from "../helpers/wait.js";

let start: Child;

/** The text after a label in the "Running." block, e.g. `Dashboard    http://…/`. */
function printed(label: string): string {
  const line = start
    .output()
    .split("\n")
    .find((l) => l.trimStart().startsWith(label));
  if (!line) throw new Error(`npm start printed no '${label}' line:\n${start.output()}`);
  return line.trimStart().slice(label.length).trim();
}

beforeAll(async () => {
  const port = await freePort();
  start = startChild(join(REPO_ROOT, "node_modules/.bin/tsx"), ["scripts/start.ts"], {
    name: "npm start",
    // As on a machine where nothing is configured: the bundled scripted model and random tokens.
    env: {
      PORT: String(port),
      STATE_DIR: tempDir("edgeloop-start-"),
      OPENAI_BASE_URL: "",
      ADMIN_TOKEN: "",
      API_TOKEN: "",
    },
  });
  await waitUntil(
    async () => start.output(),
    (out) => out.includes("Ctrl-C to stop.") || out.includes("npm start failed"),
    { timeoutMs: 150_000, what: "npm start to finish its sample conversation" },
  );
  expect(start.output()).not.toContain("npm start failed");
});

afterAll(async () => {
  await start?.stop("SIGTERM");
});

describe("npm start", () => {
  it("prints a dashboard URL and an admin token that log in", async () => {
    const url = printed("Dashboard");
    const token = printed("Admin token").split(/\s+/)[0]!;
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    const login = (t: string) =>
      fetch(`${url}login`, { method: "POST", body: new URLSearchParams({ token: t }), redirect: "manual" });
    expect((await login("not-the-token")).status).toBe(401);
    const ok = await login(token);
    expect(ok.status).toBe(303);
    const cookie = ok.headers.get("set-cookie")!.split(";")[0]!;
    const page = await fetch(url, { headers: { cookie } });
    expect(await page.text()).toContain("Send a message");
    const devices = (await (await fetch(`${url}v1/devices`, { headers: { cookie } })).json()) as {
      devices: { agent_id: string; online: boolean }[];
    };
    expect(devices.devices).toEqual([expect.objectContaining({ agent_id: "pi-1", online: true })]);
  });

  it("prints an `npx edgeloop send … --wait` line that works as printed", () => {
    const line = printed("CLI");
    expect(line).toMatch(/^npx edgeloop send .* --wait /);
    const run = spawnSync("sh", ["-c", line], { cwd: REPO_ROOT, encoding: "utf8", timeout: 60_000 });
    expect(run.status, `${run.stdout}\n${run.stderr}`).toBe(0);
    // The bundled model reads the workspace's README with the read tool, on the device.
    expect(run.stdout).toContain("✓ read");
    expect(run.stdout).toContain("This is the device's throwaway workspace");
    expect(run.stdout).toContain("completed");
  });
});
