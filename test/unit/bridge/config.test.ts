import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { type BridgeConfig, loadBridgeConfig } from "../../../bridge/src/config.js";
import { tempDir } from "../../helpers/temp-dir.js";

const BIN = fileURLToPath(new URL("../../../bridge/bin/edgeloop-bridge.js", import.meta.url));
const BASE = ["--url", "http://hub:8787", "--broker", "mqtt://broker:1883"];

function config(argv: string[], env: NodeJS.ProcessEnv = {}): BridgeConfig {
  const r = loadBridgeConfig(argv, env, "/srv");
  if (!r.ok) throw new Error(r.error);
  if (r.value.command !== "run") throw new Error("help");
  return r.value.config;
}
function error(argv: string[], env: NodeJS.ProcessEnv = {}): string {
  const r = loadBridgeConfig(argv, env, "/srv");
  if (r.ok) throw new Error("expected an error");
  return r.error;
}

describe("bridge config", () => {
  it("takes repeatable --device id:token (tokens may hold ':') and defaults", () => {
    const c = config([...BASE, "--device", "pi-1:s3cret", "--device", "pi-2:a:b"]);
    expect([...c.devices]).toEqual([
      ["pi-1", "s3cret"],
      ["pi-2", "a:b"],
    ]);
    expect(c.broker).toEqual({
      url: "mqtt://broker:1883",
      username: undefined,
      password: undefined,
      ca: undefined,
      cert: undefined,
      key: undefined,
    });
    expect(c.stateDir).toBe(join(homedir(), ".local/share/edgeloop/bridge"));
    expect(config(BASE, { XDG_DATA_HOME: "/data" }).stateDir).toBe("/data/edgeloop/bridge");
    expect(c.staleMs).toBe(120_000);
  });

  it("reads EDGELOOP_BRIDGE_* env, and flags win over env", () => {
    const c = config(["--broker", "mqtts://b:8883"], {
      EDGELOOP_BRIDGE_URL: "https://edge.example.com",
      EDGELOOP_BRIDGE_BROKER: "mqtt://ignored:1883",
      EDGELOOP_BRIDGE_DEVICES: "pi-1:t1, pi-2:t2",
      EDGELOOP_BRIDGE_USERNAME: "bridge",
      EDGELOOP_BRIDGE_PASSWORD: "pw",
      EDGELOOP_BRIDGE_CA: "certs/ca.pem",
    });
    expect(c.url).toBe("https://edge.example.com");
    expect(c.broker).toMatchObject({
      url: "mqtts://b:8883",
      username: "bridge",
      password: "pw",
      ca: "/srv/certs/ca.pem",
    });
    expect([...c.devices.keys()]).toEqual(["pi-1", "pi-2"]);
  });

  it("reads a TOML file, paths relative to the file", () => {
    const dir = tempDir("bridge-conf-");
    const file = join(dir, "bridge.toml");
    writeFileSync(
      file,
      `[bridge]\nurl = "http://hub:8787"\nbroker = "mqtt://b:1883"\nid = "barn"\nstate_dir = "state"\n\n[broker]\ncert = "c.pem"\nkey = "k.pem"\n\n[devices]\npi-1 = "tok1"\n`,
    );
    const c = config(["--config", file]);
    expect(c.bridgeId).toBe("barn");
    expect(c.stateDir).toBe(join(dir, "state"));
    expect(c.broker).toMatchObject({ cert: join(dir, "c.pem"), key: join(dir, "k.pem") });
    expect(c.devices.get("pi-1")).toBe("tok1");
  });

  it("names the one bad setting", () => {
    expect(error(["--broker", "mqtt://b"])).toBe("missing setting --url, EDGELOOP_BRIDGE_URL or [bridge] url");
    expect(error([...BASE, "--device", "pi-1"])).toBe(
      "invalid setting --device (entry 1): expected <agent_id>:<token>",
    );
    expect(error([...BASE, "--device", "bad id!:t"])).toMatch(/^invalid setting --device \(entry 1\): /);
    expect(error(["--url", "http://h", "--broker", "http://b"])).toMatch(
      /^invalid setting --broker: expected an mqtt:\/\//,
    );
    expect(error([...BASE, "--frob", "1"])).toBe("unknown flag --frob (see --help)");
    expect(error([...BASE, "--cert", "c.pem"])).toMatch(/needs both/);
    expect(error([...BASE], { EDGELOOP_BRIDGE_STALE_MS: "soon" })).toBe(
      "invalid setting EDGELOOP_BRIDGE_STALE_MS: expected an integer",
    );
  });

  it("the bin exits non-zero with one clear line on a bad config", () => {
    const r = spawnSync(process.execPath, [BIN, ...BASE, "--device", "nope"], {
      encoding: "utf8",
      timeout: 60_000,
      env: { PATH: process.env.PATH },
    });
    expect(r.status).toBe(2);
    expect(r.stderr.trim().split("\n")).toEqual([
      "edgeloop-bridge: invalid setting --device (entry 1): expected <agent_id>:<token>",
    ]);
  });
});
