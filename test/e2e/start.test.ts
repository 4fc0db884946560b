/**
 * `npm start` as a new user meets it: the script the README names (scripts/start.ts, with no LLM
 * configured, on a free port and a throwaway state dir, worker settings given as environment
 * variables) runs its sample conversation, says when a call waits for approval and how to approve
 * it, then the dashboard URL and admin token it prints log in, the CLI line it prints works exactly
 * as printed in another shell, and its workspace is gone once it stops.
 */
import { spawnSync } from "node:child_process";
import { once } from "node:events";
import { existsSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../helpers/free-port.js";
import { type Child, REPO_ROOT, startChild } from "../helpers/processes.js";
import { tempDir } from "../helpers/temp-dir.js";
import { waitUntil } from "../helpers/wait.js";

let start: Child;
/** Set in the environment only: npm start must pass it on (and print it, not "$API_TOKEN"). */
const API_TOKEN = "api-token-from-the-environment";

/** A line that shows a command, run in a shell of its own (as pasted into another terminal). */
function runPrinted(line: string) {
  const clean = { ...process.env, API_TOKEN: "", ADMIN_TOKEN: "" };
  return spawnSync("sh", ["-c", line], { cwd: REPO_ROOT, encoding: "utf8", timeout: 60_000, env: clean });
}

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
    // No model configured (the bundled scripted one), an admin token made up, the API token and an
    // approval policy from the environment (no .dev.vars needed).
    env: {
      PORT: String(port),
      STATE_DIR: tempDir("edgeloop-start-"),
      OPENAI_BASE_URL: "",
      ADMIN_TOKEN: "",
      API_TOKEN,
      TOOL_POLICIES: "bash:requires_approval",
    },
  });
  // The sample's bash call waits for a person: npm start says so and prints the approve command.
  await waitUntil(
    async () => start.output(),
    (out) => /npx edgeloop approve .*\n/.test(out) || out.includes("npm start failed"),
    { timeoutMs: 150_000, what: "npm start to say its sample waits for approval" },
  );
  expect(start.output()).not.toContain("npm start failed");
  const approve = /(npx edgeloop approve .*)\n/.exec(start.output())![1]!;
  const approved = runPrinted(approve);
  expect(approved.status, `${approved.stdout}\n${approved.stderr}`).toBe(0);
  await waitUntil(
    async () => start.output(),
    (out) => out.includes("Ctrl-C to stop.") || out.includes("npm start failed"),
    { timeoutMs: 60_000, what: "npm start to finish its sample conversation once approved" },
  );
  expect(start.output()).toMatch(/< assistant \(completed/);
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
    expect(line).toContain(`--token ${API_TOKEN}`);
    const run = runPrinted(line);
    expect(run.status, `${run.stdout}\n${run.stderr}`).toBe(0);
    // The bundled model reads the workspace's README with the read tool, on the device.
    expect(run.stdout).toContain("✓ read");
    expect(run.stdout).toContain("This is the device's throwaway workspace");
    expect(run.stdout).toContain("completed");
  });

  it("keeps quiet when a browser drops its live stream", async () => {
    const conversation = printed("This one").split(/\s+/)[3]!;
    const url = printed("Dashboard");
    const stream = new AbortController();
    const open = () =>
      fetch(`${url}v1/conversations/${conversation}/events`, {
        headers: { authorization: `Bearer ${API_TOKEN}` },
        signal: stream.signal,
      });
    // A kept-alive socket the worker has since closed fails once; a browser retries as well.
    const res = await open().catch(open);
    await res.body!.getReader().read();
    stream.abort();
    // A request after the drop: by then the worker has handled the broken stream.
    expect((await fetch(`${url}healthz`)).status).toBe(200);
    expect(start.output()).not.toMatch(/broken pipe|EPIPE/i);
  });

  it("removes its throwaway workspace when stopped", async () => {
    const workspace = /workspace (\S+) \(removed on exit\)/.exec(start.output())![1]!;
    expect(existsSync(workspace)).toBe(true);
    await start.stop("SIGTERM");
    expect(existsSync(workspace)).toBe(false);
  });
});

describe("npm start on a busy port", () => {
  it("names the port at once instead of failing later", async () => {
    const busy = createServer().listen(0, "127.0.0.1");
    await once(busy, "listening");
    const port = (busy.address() as { port: number }).port;
    try {
      const run = spawnSync(join(REPO_ROOT, "node_modules/.bin/tsx"), ["scripts/start.ts"], {
        cwd: REPO_ROOT,
        encoding: "utf8",
        timeout: 30_000,
        env: { ...process.env, PORT: String(port) },
      });
      expect(run.status).toBe(1);
      expect(run.stdout).toContain(`port ${port} on 127.0.0.1 is already in use`);
      expect(run.stdout).not.toContain("device agent");
    } finally {
      busy.close();
    }
  });
});
