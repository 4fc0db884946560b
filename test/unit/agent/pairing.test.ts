import { statSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { loadConfig } from "../../../device-agent/src/config.js";
import { defaultAgentId, saveAgentSettings } from "../../../device-agent/src/settings-file.js";
import { openPairing, PairingFailed, pairingUrl, waitForApproval } from "../../../edge-client/pairing-client.js";
import { tempDir } from "./helpers.js";

describe("edgeloop-agent pair: settings", () => {
  it("takes the worker URL as an argument and needs neither a token nor an id", () => {
    const r = loadConfig(["pair", "https://w.example", "--skills", "skills/a"], {
      XDG_CONFIG_HOME: "/home/pi/.config",
    });
    if (!r.ok || r.value.command !== "pair") throw new Error(JSON.stringify(r));
    expect(r.value.config).toMatchObject({
      url: "https://w.example",
      token: "",
      configFile: "/home/pi/.config/edgeloop/agent.toml",
    });
    expect(r.value.config.agentId).toBe(defaultAgentId());
  });

  it("reads a settings file that exists, and names the id and file it is told", () => {
    const dir = tempDir("pair-cfg-");
    const file = join(dir, "agent.toml");
    writeFileSync(file, "[tools]\nmax_concurrent = 2\n");
    const r = loadConfig(["pair", "http://127.0.0.1:8787", "--agent-id", "kitchen", "--config", file, "--no-run"], {});
    if (!r.ok || r.value.command !== "pair") throw new Error(JSON.stringify(r));
    expect(r.value.config).toMatchObject({ agentId: "kitchen", maxConcurrent: 2, configFile: file });
    expect(r.value.noRun).toBe(true);
  });

  it("refuses what it cannot pair with, naming the problem", () => {
    const err = (argv: string[]) => {
      const r = loadConfig(argv, {});
      return r.ok ? "ok" : r.error;
    };
    expect(err(["pair"])).toContain("missing setting --url");
    expect(err(["pair", "not a url"])).toContain("the worker URL given to pair");
    expect(err(["pair", "https://a", "https://b"])).toContain("unexpected argument 'https://b'");
    expect(err(["pair", "https://a", "--agent-id", "has space"])).toContain("--agent-id");
    expect(err(["pair", "https://a", "--transport", "mqtt", "--broker", "mqtt://b"])).toContain("the bridge pairs");
    expect(err(["run", "https://a"])).toContain("unexpected argument");
    expect(err(["run", "--no-run"])).toContain("--no-run goes with pair only");
  });

  it("makes a device id of the host's name", () => {
    expect(defaultAgentId("Pi 4.local")).toBe("pi-4.local");
    expect(defaultAgentId("--")).toBe("edgeloop-agent");
  });

  it("saves the token owner-only in a folder made owner-only, keeping the rest of the file", () => {
    const dir = tempDir("pair-save-");
    const file = join(dir, "new", "agent.toml");
    saveAgentSettings(file, { url: "http://127.0.0.1:1", id: "pi-9", token: "edl_secret" });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, "new")).mode & 0o777).toBe(0o700);

    writeFileSync(file, '[agent]\nid = "old"\nlog_level = "debug"\n[tools]\nmax_concurrent = 3\n', { mode: 0o644 });
    saveAgentSettings(file, { url: "http://127.0.0.1:2", id: "pi-9", token: "edl_new" });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const r = loadConfig(["--config", file, "--skills", "s"], {});
    if (!r.ok || !("config" in r.value)) throw new Error(JSON.stringify(r));
    expect(r.value.config).toMatchObject({
      url: "http://127.0.0.1:2",
      agentId: "pi-9",
      token: "edl_new",
      logLevel: "debug",
      maxConcurrent: 3,
    });
  });
});

/** A stand-in worker answering the pairing routes from a script of claim answers. */
let server: Server | undefined;
afterEach(() => server?.close());

async function standIn(claims: { status: number; body: unknown }[]): Promise<{ url: string; seen: string[] }> {
  const seen: string[] = [];
  server = createServer((req: IncomingMessage, res: ServerResponse) => {
    seen.push(`${req.method} ${req.url} ${req.headers.authorization ?? ""}`);
    const reply = (status: number, body: unknown) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(body));
    };
    if (req.url === "/base/v1/pairing")
      return reply(201, {
        code: "ABCD-2345",
        claim_secret: "pcl_s",
        expires_at: Date.now() + 60_000,
        poll_after_ms: 1,
      });
    const next = claims.shift() ?? { status: 500, body: {} };
    reply(next.status, next.body);
  });
  await new Promise<void>((r) => server!.listen(0, "127.0.0.1", r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/base/`, seen };
}

const noWait = { sleep: async () => {} };

describe("pairing client", () => {
  it("builds the pairing URL from the agent's URL, whatever its scheme", () => {
    expect(pairingUrl("wss://w.example/", "/claim")).toBe("https://w.example/v1/pairing/claim");
    expect(pairingUrl("http://127.0.0.1:8787")).toBe("http://127.0.0.1:8787/v1/pairing");
  });

  it("asks until approved, with the claim secret, and returns the token", async () => {
    const pending = { status: 200, body: { status: "pending", expires_at: Date.now() + 60_000, poll_after_ms: 1 } };
    const worker = await standIn([
      pending,
      pending,
      { status: 200, body: { status: "approved", agent_id: "pi-1", token_id: "tok_1", token: "edl_t" } },
    ]);
    const opened = await openPairing(worker.url, { agent_id: "pi-1", kind: "agent" });
    expect(opened.code).toBe("ABCD-2345");
    const paired = await waitForApproval(worker.url, opened, noWait);
    expect(paired).toEqual({ agent_id: "pi-1", token_id: "tok_1", token: "edl_t" });
    expect(worker.seen.slice(1)).toEqual(Array(3).fill("POST /base/v1/pairing/claim Bearer pcl_s"));
  });

  it("waits out a worker error while the code lives", async () => {
    const worker = await standIn([
      { status: 503, body: { title: "busy" } },
      { status: 200, body: { status: "approved", agent_id: "pi-1", token_id: "tok_1", token: "edl_t" } },
    ]);
    const opened = await openPairing(worker.url, { agent_id: "pi-1", kind: "agent" });
    expect((await waitForApproval(worker.url, opened, noWait)).token).toBe("edl_t");
  });

  it("ends with the reason when denied, expired, or answered with nonsense", async () => {
    const outcomes = [
      { answer: { status: 200, body: { status: "denied" } }, says: "denied" },
      {
        answer: { status: 410, body: { title: "Pairing expired", detail: "pair again" } },
        says: "410 Pairing expired",
      },
      { answer: { status: 200, body: { status: "approved", agent_id: "x" } }, says: "unexpected answer" },
    ];
    for (const { answer, says } of outcomes) {
      const worker = await standIn([answer]);
      const opened = await openPairing(worker.url, { agent_id: "pi-1", kind: "agent" });
      const failed = waitForApproval(worker.url, opened, noWait);
      await expect(failed).rejects.toBeInstanceOf(PairingFailed);
      await expect(failed).rejects.toThrow(says);
      server!.close();
    }
  });
});
