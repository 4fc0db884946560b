/**
 * Every place a message can start takes the same targets, fleets included (docs/fleet.md): the
 * REST body, a schedule, the fleet MCP server's `send_message` and a named hook accept and refuse
 * the same combinations, naming the same field.
 */
import { MessageRequest } from "@edgeloop/protocol";
import { ScheduleRequest } from "@edgeloop/protocol/schedules";
import { describe, expect, it } from "vitest";
import type { z } from "zod";
import { Hook, HooksVarsSchema } from "../../../worker/hooks/hook-settings.js";
import { SendMessageArgs } from "../../../worker/mcp/send-message-args.js";

const targets: Record<string, unknown>[] = [
  { agent_id: "pi-1" },
  { agent_ids: ["pi-1", "pi-2"] },
  { pool: "lab" },
  { pool: "lab", mode: "fleet" },
  { pool: "lab", mode: "single", tools: ["bash"] },
  { agent_ids: ["pi-1"] },
  { agent_ids: ["pi-1", "pi-1"] },
  { agent_ids: ["pi-1", "pi-2"], agent_id: "pi-1" },
  { agent_ids: ["pi-1", "pi-2"], mode: "fleet" },
  { pool: "lab", mode: "fleet", tools: ["bash"] },
  { agent_ids: ["pi-1", "pi-2"], tools: ["bash"] },
  {},
];

/** Accepted, or the first refused field. */
function verdict(schema: z.ZodType, body: unknown): string {
  const r = schema.safeParse(body);
  return r.success ? "ok" : String(r.error.issues[0]!.path[0]);
}

describe("a message's target", () => {
  it("is judged alike by POST /v1/messages, schedules and send_message", () => {
    for (const t of targets) {
      const rest = verdict(MessageRequest, { ...t, text: "hi" });
      expect(verdict(ScheduleRequest, { ...t, text: "hi", every_seconds: 60 }), JSON.stringify(t)).toBe(rest);
      expect(verdict(SendMessageArgs, { ...t, text: "hi" }), JSON.stringify(t)).toBe(rest);
    }
    expect(verdict(MessageRequest, { agent_ids: ["pi-1", "pi-2"], text: "hi" })).toBe("ok");
    expect(verdict(MessageRequest, { pool: "lab", mode: "fleet", tools: ["bash"], text: "hi" })).toBe("tools");
  });

  it("is judged alike by a named hook, whose one device is `agent` (hooks take no `tools`)", () => {
    for (const t of targets.filter((t) => !("tools" in t))) {
      const { agent_id, ...rest } = t;
      const hook = { verify: "token", template: "x", ...rest, ...(agent_id ? { agent: agent_id } : {}) };
      const field = verdict(Hook, hook);
      const expected = verdict(MessageRequest, { ...t, text: "hi" });
      expect(field, JSON.stringify(t)).toBe(expected === "agent_id" ? "agent" : expected);
    }
    const none = Hook.safeParse({ verify: "token", template: "x" });
    expect(none.error?.issues.map((i) => i.message)).toContain("give exactly one of agent, agent_ids or pool");
    const fleet = { verify: "token", template: "x", pool: "lab", mode: "fleet" };
    expect(HooksVarsSchema.safeParse({ HOOKS: JSON.stringify({ h: fleet }), HOOK_SECRETS: "h:s" }).success).toBe(true);
  });
});
