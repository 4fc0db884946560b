import { MessageRequest } from "@edgeloop/protocol";
import { describe, expect, it } from "vitest";
import { scopedPrincipal, targetRefusal, unscoped } from "../../../runtime/access.js";

const parse = (body: unknown) => MessageRequest.safeParse(body);
const problem = (body: unknown) => {
  const r = parse(body);
  return r.success ? null : r.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ");
};

describe("a fleet message", () => {
  it("names several devices, or a pool in fleet mode", () => {
    expect(parse({ agent_ids: ["pi-1", "pi-2"], text: "hi" }).success).toBe(true);
    expect(parse({ pool: "lab", mode: "fleet", text: "hi" }).success).toBe(true);
    expect(parse({ pool: "lab", mode: "single", text: "hi" }).success).toBe(true);
  });

  it("is refused with the field named when it is ambiguous or malformed", () => {
    expect(problem({ agent_ids: ["pi-1"], text: "hi" })).toMatch(/^agent_ids: /);
    expect(problem({ agent_ids: ["pi-1", "pi-1"], text: "hi" })).toBe("agent_ids: must not repeat a device");
    expect(problem({ agent_ids: Array.from({ length: 17 }, (_, i) => `d${i}`), text: "hi" })).toMatch(/^agent_ids: /);
    expect(problem({ agent_ids: ["pi-1", "pi-2"], agent_id: "pi-1", text: "hi" })).toBe(
      "agent_id: give exactly one of agent_id, agent_ids or pool",
    );
    expect(problem({ agent_ids: ["pi-1", "pi-2"], mode: "fleet", text: "hi" })).toBe("mode: mode goes with a pool");
    expect(problem({ pool: "lab", mode: "all", text: "hi" })).toMatch(/^mode: /);
    expect(problem({ pool: "lab", mode: "fleet", tools: ["bash"], text: "hi" })).toBe(
      "tools: tools goes with a pool that picks one device",
    );
    expect(problem({ agent_ids: ["pi-1", "pi-2"], tools: ["bash"], text: "hi" })).toMatch(/^tools: /);
    expect(parse({ pool: "lab", tools: ["bash"], text: "hi" }).success).toBe(true);
  });

  it("reaches only devices the credential may message, every one of them", () => {
    const key = scopedPrincipal(
      "key:k1",
      { agents: ["pi-1"], pools: ["lab"], scopes: ["messages"] },
      new Map([["lab", ["pi-2"]]]),
    );
    expect(targetRefusal(key, { agent_ids: ["pi-1", "pi-2"] })).toBeNull();
    expect(targetRefusal(key, { agent_ids: ["pi-1", "pi-3"] })).toEqual({
      field: "agent_ids",
      detail: "agent 'pi-3' is not one this credential may message",
    });
    expect(targetRefusal(unscoped("api"), { agent_ids: ["pi-1", "pi-9"] })).toBeNull();
  });
});
