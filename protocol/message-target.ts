import { z } from "zod";
import { Identifier, ToolName } from "./ids.js";

/** The most devices one message may name (`agent_ids`); a fleet pool is held to the same. */
export const MAX_FLEET_DEVICES = 16;

/**
 * Where a message goes: one device, several (a fleet), or a pool that picks one or, in fleet mode,
 * uses all (docs/fleet.md). Every place a message can start (`POST /v1/messages`, the fleet MCP
 * server's `send_message`, schedules, named hooks) takes these fields and these rules, so a target
 * one of them accepts is accepted by all.
 */
export const MessageTargetFields = {
  agent_id: Identifier.optional().describe("the device; give this, `agent_ids` or `pool`"),
  agent_ids: z
    .array(Identifier)
    .min(2)
    .max(MAX_FLEET_DEVICES)
    .refine((ids) => new Set(ids).size === ids.length, "must not repeat a device")
    .optional()
    .describe("several devices, one conversation over all of them (a fleet; docs/fleet.md)"),
  pool: Identifier.optional().describe("a pool of devices (POOLS); give this, `agent_id` or `agent_ids`"),
  mode: z
    .enum(["single", "fleet"])
    .optional()
    .describe("with a pool: `single` (default) picks one device, `fleet` uses all of them at once"),
  tools: z.array(ToolName).max(64).optional().describe("with a pool: tools the chosen device must have"),
};

export type MessageTarget = {
  agent_id?: string | undefined;
  agent_ids?: readonly string[] | undefined;
  pool?: string | undefined;
  mode?: "single" | "fleet" | undefined;
  tools?: readonly string[] | undefined;
};

/** A schema's own name for a target field, where it differs (a hook's `agent`). */
export type TargetFieldNames = Partial<Record<keyof MessageTarget, string>>;

/** What is wrong with a target's combination of fields, by field (empty when it is whole). Pure. */
export function targetIssues(t: MessageTarget, names: TargetFieldNames = {}): { path: string; message: string }[] {
  const n = (f: keyof MessageTarget) => names[f] ?? f;
  const issues: { path: string; message: string }[] = [];
  const targets = [t.agent_id, t.agent_ids, t.pool].filter((x) => x !== undefined).length;
  if (targets !== 1)
    issues.push({
      path: n("agent_id"),
      message: `give exactly one of ${n("agent_id")}, ${n("agent_ids")} or ${n("pool")}`,
    });
  if (t.mode !== undefined && t.pool === undefined)
    issues.push({ path: n("mode"), message: `${n("mode")} goes with a pool` });
  // A fleet offers every device's tools: there is no one device to pick by them.
  if (t.tools !== undefined && (t.agent_ids !== undefined || t.mode === "fleet"))
    issues.push({ path: n("tools"), message: `${n("tools")} goes with a pool that picks one device` });
  return issues;
}

/** `targetIssues` as zod issues, for a schema's superRefine. */
export function refineTarget(t: MessageTarget, ctx: z.RefinementCtx, names: TargetFieldNames = {}): void {
  for (const issue of targetIssues(t, names))
    ctx.addIssue({ code: "custom", path: [issue.path], message: issue.message });
}
