import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ResultFrame } from "@edgeloop/protocol";
import { describe, expect, it } from "vitest";
import { DeviceState, type Outstanding } from "../../../bridge/src/device-state.js";
import { tempDir } from "../../helpers/temp-dir.js";

const cmd = (id: string, tool = "bash", at = 1000): Outstanding => ({
  request_id: id,
  tool,
  sent_at: at,
  expires_at: at + 60_000,
  command: { command: "tool", payload: { tool, parameters: {}, timeout_ms: 1000, request_id: id }, request_id: id },
});
const result = (id: string, tool = "bash"): ResultFrame => ({
  type: "result",
  request_id: id,
  status: "success",
  tool,
  result: "ok",
  stderr: "",
  exit_code: 0,
  elapsed_ms: 1,
});

describe("DeviceState", () => {
  it("survives a restart: outstanding commands and unacked results are on disk", () => {
    const dir = tempDir("bridge-state-");
    const a = DeviceState.open(dir, "pi-1");
    a.addOutstanding(cmd("r1"));
    a.addOutstanding(cmd("r2"));
    a.complete(result("r2"));
    const b = DeviceState.open(dir, "pi-1");
    expect(b.outstanding().map((o) => o.request_id)).toEqual(["r1"]);
    expect(b.unacked().map((r) => r.request_id)).toEqual(["r2"]);
    expect(b.held().sort()).toEqual(["r1", "r2"]);
    b.ack(["r2"]);
    expect(DeviceState.open(dir, "pi-1").held()).toEqual(["r1"]);
  });

  it("matches by request id, remembers answered ones as duplicates, and guesses the oldest by tool", () => {
    const s = DeviceState.open(null, "pi-1");
    s.addOutstanding(cmd("r1", "bash", 2000));
    s.addOutstanding(cmd("r2", "read", 1000));
    s.addOutstanding(cmd("r3", "bash", 1500));
    expect(s.match("r1", undefined)).toMatchObject({ found: { request_id: "r1" }, guessed: false });
    expect(s.match(undefined, "bash")).toMatchObject({ found: { request_id: "r3" }, guessed: true });
    expect(s.match(undefined, undefined)).toMatchObject({ found: { request_id: "r2" }, guessed: true });
    s.complete(result("r1"));
    expect(s.match("r1", "bash")).toEqual({ found: null, duplicate: true });
    s.ack(["r1"]);
    expect(s.match("r1", "bash")).toEqual({ found: null, duplicate: true });
    expect(s.match("someone-elses", "bash")).toEqual({ found: null, duplicate: false });
    expect(s.addOutstanding(cmd("r2"))).toBe(false);
  });

  it("expires commands long past their deadline", () => {
    const s = DeviceState.open(null, "pi-1");
    s.addOutstanding(cmd("old", "bash", 0));
    s.addOutstanding(cmd("new", "bash", 100_000));
    expect(s.expire(70_000).map((o) => o.request_id)).toEqual(["old"]);
    expect(s.held()).toEqual(["new"]);
  });

  it("starts empty, with a warning, from a corrupt file", () => {
    const dir = tempDir("bridge-state-");
    writeFileSync(join(dir, "pi-1.json"), "{not json");
    const warnings: string[] = [];
    const s = DeviceState.open(dir, "pi-1", (m) => warnings.push(m));
    expect(s.held()).toEqual([]);
    expect(warnings[0]).toMatch(/unreadable/);
  });
});
