import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { loadBridgeConfig } from "../../../bridge/src/config.js";
import { BridgePairing } from "../../../bridge/src/device-pairing.js";
import type { Logger } from "../../../edge-client/log.js";
import { tempDir } from "../agent/helpers.js";

const BASE = ["--url", "http://hub:8787", "--broker", "mqtt://broker:1883"];

describe("bridge --pair-devices", () => {
  it("is off by default, on alone or with a value, and refuses nonsense", () => {
    const pairs = (argv: string[], env: NodeJS.ProcessEnv = {}) => {
      const r = loadBridgeConfig([...BASE, ...argv], env, "/srv");
      if (!r.ok) return r.error;
      return r.value.command === "run" ? r.value.config.pairDevices : "help";
    };
    expect(pairs([])).toBe(false);
    expect(pairs(["--pair-devices"])).toBe(true);
    expect(pairs(["--pair-devices", "--log-level", "debug"])).toBe(true);
    expect(pairs(["--pair-devices=false"])).toBe(false);
    expect(pairs([], { EDGELOOP_BRIDGE_PAIR_DEVICES: "1" })).toBe(true);
    expect(pairs(["--pair-devices=maybe"])).toContain("--pair-devices");
  });
});

/** A stand-in worker: opens requests, then answers claims from a script. */
let server: Server | undefined;
afterEach(() => server?.close());

async function standIn(claim: { status: number; body: unknown }): Promise<string> {
  server = createServer((req, res) => {
    const reply = (status: number, body: unknown) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(body));
    };
    if (req.url === "/v1/pairing")
      return reply(201, {
        code: "ABCD-2345",
        claim_secret: "pcl_s",
        expires_at: Date.now() + 60_000,
        poll_after_ms: 1,
      });
    reply(claim.status, claim.body);
  });
  await new Promise<void>((r) => server!.listen(0, "127.0.0.1", r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function recordingLog(): Logger & { lines: { msg: string; fields?: Record<string, unknown> }[] } {
  const lines: { msg: string; fields?: Record<string, unknown> }[] = [];
  const keep = (msg: string, fields?: Record<string, unknown>) =>
    void lines.push({ msg, ...(fields ? { fields } : {}) });
  return { lines, debug: keep, info: keep, warn: keep, error: keep };
}

const until = async (ok: () => boolean) => {
  while (!ok()) await new Promise((r) => setTimeout(r, 5));
};

describe("BridgePairing", () => {
  it("pairs a device once, keeps its token owner-only, and knows it after a restart", async () => {
    const url = await standIn({
      status: 200,
      body: { status: "approved", agent_id: "sensor-1", token_id: "tok_1", token: "edl_t" },
    });
    const stateDir = join(tempDir("bridge-pair-"), "state");
    const log = recordingLog();
    const pairing = new BridgePairing({ url, stateDir, bridgeId: "barn", log });
    const got: string[] = [];
    pairing.request("sensor-1", (t) => got.push(t));
    pairing.request("sensor-1", (t) => got.push(t)); // already asking: no second request
    await until(() => got.length > 0);
    expect(got).toEqual(["edl_t"]);
    expect(log.lines.find((l) => l.msg === "device waiting for pairing approval")?.fields).toMatchObject({
      agent_id: "sensor-1",
      code: "ABCD-2345",
      approve: "npx edgeloop devices approve ABCD-2345",
    });
    const file = join(stateDir, "paired-devices.json");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(stateDir).mode & 0o777).toBe(0o700);
    expect([...new BridgePairing({ url, stateDir, bridgeId: "barn", log }).paired()]).toEqual([["sensor-1", "edl_t"]]);
  });

  it("does not ask again for a denied device; does for one whose pairing failed otherwise", async () => {
    const url = await standIn({ status: 200, body: { status: "denied" } });
    const stateDir = tempDir("bridge-deny-");
    const log = recordingLog();
    const pairing = new BridgePairing({ url, stateDir, bridgeId: "barn", log });
    pairing.request("intruder", () => undefined);
    await until(() => log.lines.some((l) => l.msg === "device not paired"));
    pairing.request("intruder", () => undefined); // returns at once: a denial stands
    expect(log.lines.filter((l) => l.msg === "device waiting for pairing approval")).toHaveLength(1);
    expect(existsSync(join(stateDir, "paired-devices.json"))).toBe(false);

    server!.close();
    const expiredUrl = await standIn({ status: 410, body: { title: "Pairing expired" } });
    const seen = recordingLog();
    const retried = new BridgePairing({ url: expiredUrl, stateDir, bridgeId: "barn", log: seen });
    retried.request("late", () => undefined);
    await until(() => seen.lines.some((l) => l.msg === "device not paired"));
    retried.request("late", () => undefined);
    await until(() => seen.lines.filter((l) => l.msg === "device waiting for pairing approval").length === 2);
    retried.stop();
  });

  it("refuses a state file that is not a map of ids to tokens, naming it", () => {
    const stateDir = tempDir("bridge-bad-");
    writeFileSync(join(stateDir, "paired-devices.json"), JSON.stringify({ "bad id": 3 }));
    expect(
      () => new BridgePairing({ url: "http://127.0.0.1:9", stateDir, bridgeId: "b", log: recordingLog() }),
    ).toThrow("paired-devices.json");
    expect(readFileSync(join(stateDir, "paired-devices.json"), "utf8")).toContain("bad id");
  });
});
