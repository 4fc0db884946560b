import { validateArguments } from "@edgeloop/protocol/validate-arguments";
import { describe, expect, it } from "vitest";
import { invokeFor, outcomeOf, skillsFor } from "../../../durable-objects/device-hub/wires/openclaw/node-tools.js";

// What an Android phone (callLog.search) and an iPhone with a paired watch and Health summaries
// on (health.summary, watch.*) advertise beyond the commands node-protocol.test.ts covers.
const phone = ["callLog.search", "health.summary", "watch.status", "watch.notify"];

const toolsOf = (commands: string[]) => skillsFor(commands)[0]!.tools;
const named = (name: string) => toolsOf(phone).find((t) => t.name === name)!;

describe("a phone's call log, health summary and watch as tools", () => {
  it("offers each under its command's name; only health.summary, on OpenClaw's dangerous list, asks first", () => {
    const tools = toolsOf(phone);
    expect(tools.map((t) => [t.name, t.binary, t.policy])).toEqual([
      ["callLog_search", "callLog.search", undefined],
      ["health_summary", "health.summary", "requires_approval"],
      ["watch_status", "watch.status", undefined],
      ["watch_notify", "watch.notify", undefined],
    ]);
  });

  it("takes callLog.search's filters as the Android app reads them, without its outdated exact date", () => {
    const search = named("callLog_search");
    expect(Object.keys(search.parameters.properties ?? {})).toEqual([
      "cachedName",
      "number",
      "dateStart",
      "dateEnd",
      "duration",
      "type",
      "limit",
      "offset",
    ]);
    expect(search.parameters.required).toEqual([]);
    const args = { number: "555", dateStart: 1_700_000_000_000, type: 3, limit: 10 };
    expect(validateArguments(search.name, search.parameters, args).ok).toBe(true);
    expect(invokeFor(search, args, 10_000)).toEqual({ command: "callLog.search", params: args });
    expect(validateArguments(search.name, search.parameters, { limit: 500 }).ok).toBe(false);
    expect(validateArguments(search.name, search.parameters, { dateStart: "yesterday" }).ok).toBe(false);
  });

  it("asks health.summary for today, the only period the iPhone knows, and nothing else", () => {
    const health = named("health_summary");
    expect(health.parameters).toEqual({
      type: "object",
      properties: { period: { type: "string", enum: ["today"], description: "the only period: today" } },
      required: ["period"],
    });
    expect(invokeFor(health, { period: "today" }, 10_000)).toEqual({
      command: "health.summary",
      params: { period: "today" },
    });
    expect(validateArguments(health.name, health.parameters, {}).ok).toBe(false);
    expect(validateArguments(health.name, health.parameters, { period: "week" }).ok).toBe(false);
  });

  it("sends watch.notify a title and a body, never a prompt whose replies edgeloop would not take", () => {
    const notify = named("watch_notify");
    expect(notify.parameters.required).toEqual(["title", "body"]);
    const props = Object.keys(notify.parameters.properties ?? {});
    expect(props).toEqual(["title", "body", "priority", "kind", "details", "expiresAtMs", "risk"]);
    for (const reply of ["promptId", "sessionKey", "gatewayStableID", "actions"]) expect(props).not.toContain(reply);
    const args = { title: "Build", body: "done", priority: "timeSensitive", risk: "low" };
    expect(validateArguments(notify.name, notify.parameters, args).ok).toBe(true);
    expect(invokeFor(notify, args, 10_000)).toEqual({ command: "watch.notify", params: args });
    expect(validateArguments(notify.name, notify.parameters, { title: "only a title" }).ok).toBe(false);
    expect(validateArguments(notify.name, notify.parameters, { title: "t", body: "b", priority: "loud" }).ok).toBe(
      false,
    );
    const status = named("watch_status");
    expect(status.parameters).toEqual({ type: "object", properties: {}, required: [] });
  });

  it("gives the model the phone's JSON answer as text", () => {
    const payload = {
      supported: true,
      paired: true,
      appInstalled: true,
      reachable: false,
      activationState: "activated",
    };
    const outcome = outcomeOf(
      "watch_status",
      "watch.status",
      { id: "r", nodeId: "n", ok: true, payload },
      { timeoutMs: 1000, elapsedMs: 5 },
    );
    expect(outcome).toMatchObject({ status: "success", result: JSON.stringify(payload) });
  });
});
