import { ApprovalRule } from "@edgeloop/protocol/approval-rules";
import { Identifier, ToolName } from "@edgeloop/protocol/ids";
import { z } from "zod";
import { type Command, parseInput, printJson } from "../command.js";
import { EXIT, usageError } from "../exit-codes.js";
import { localTime } from "../output/format.js";
import { renderTable } from "../output/table.js";

const synopsis =
  "rules list [--agent <id>] [--tool <name>] [--all] | rules add allow|deny <tool> [--agent <id>] [--pattern <regex>] [--expires-in <seconds>] [--reason <text>] | rules revoke <rule_id> [--json]";

const List = z.looseObject({ rules: z.array(ApprovalRule) });
const Revoked = z.looseObject({ rule_id: z.string(), revoked: z.boolean() });

const Filters = z.object({ agent: Identifier.optional(), tool: ToolName.optional(), all: z.boolean().optional() });
const AddFlags = z.object({
  agent: Identifier.optional(),
  pattern: z.string().min(1).optional(),
  "expires-in": z.coerce.number().int().positive().optional(),
  reason: z.string().min(1).max(2000).optional(),
});

function state(r: ApprovalRule, now = Date.now()): string {
  if (r.revoked_at) return "revoked";
  if (r.expires_at !== null && r.expires_at <= now) return "expired";
  return r.expires_at !== null ? `until ${localTime(r.expires_at)}` : "active";
}

/** `rules`: the deployment's remembered approval decisions (made by `approve --always`, or here). */
export const rulesCommand: Command = {
  names: ["rules"],
  synopsis,
  summary: "list, add and revoke approval rules (remembered approve/deny decisions)",
  options: {
    agent: { type: "string" },
    tool: { type: "string" },
    all: { type: "boolean" },
    pattern: { type: "string" },
    "expires-in": { type: "string" },
    reason: { type: "string" },
  },
  async run({ client, json, values, positionals: args }) {
    const [action, a1, a2, ...rest] = args;
    if (rest.length > 0) throw usageError(`unexpected argument '${rest[0]}'\nusage: edgeloop ${synopsis}`);
    if (action === "list") {
      const f = parseInput(Filters, { agent: values.agent, tool: values.tool, all: values.all }, synopsis);
      const q = new URLSearchParams({
        ...(f.agent ? { agent_id: f.agent } : {}),
        ...(f.tool ? { tool: f.tool } : {}),
        ...(f.all ? { include_inactive: "true" } : {}),
      });
      const list = await client.json(List, `/v1/approval-rules${q.size ? `?${q}` : ""}`, { auth: "api" });
      if (json) printJson(list);
      else if (list.rules.length === 0) console.log("No approval rules.");
      else
        console.log(
          renderTable(
            [
              { header: "rule", value: (r) => r.rule_id },
              { header: "effect", value: (r) => r.effect },
              { header: "device", value: (r) => r.agent_id ?? "any" },
              { header: "tool", value: (r) => r.tool },
              { header: "pattern", value: (r) => r.pattern ?? "-" },
              { header: "state", value: (r) => state(r) },
              { header: "made by", value: (r) => r.created_by },
            ],
            list.rules,
          ),
        );
      return EXIT.ok;
    }
    if (action === "add") {
      if (a1 !== "allow" && a1 !== "deny") throw usageError(`say allow or deny\nusage: edgeloop ${synopsis}`);
      const tool = parseInput(ToolName, a2, synopsis);
      const f = parseInput(AddFlags, values, synopsis);
      const body = {
        effect: a1,
        tool,
        ...(f.agent ? { agent_id: f.agent } : {}),
        ...(f.pattern ? { pattern: f.pattern } : {}),
        ...(f["expires-in"] ? { expires_in_seconds: f["expires-in"] } : {}),
        ...(f.reason ? { reason: f.reason } : {}),
      };
      const rule = await client.json(ApprovalRule, "/v1/approval-rules", { method: "POST", auth: "api", body });
      if (json) printJson(rule);
      else console.log(`Added ${rule.rule_id}: ${rule.effect} ${rule.tool} on ${rule.agent_id ?? "any device"}.`);
      return EXIT.ok;
    }
    if (action === "revoke") {
      if (!a1 || a2 !== undefined) throw usageError(`give one <rule_id>\nusage: edgeloop ${synopsis}`);
      const id = parseInput(Identifier, a1, synopsis);
      const res = await client.json(Revoked, `/v1/approval-rules/${encodeURIComponent(id)}`, {
        method: "DELETE",
        auth: "api",
      });
      if (json) printJson(res);
      else console.log(`Revoked ${res.rule_id}.`);
      return EXIT.ok;
    }
    throw usageError(`say list, add or revoke\nusage: edgeloop ${synopsis}`);
  },
};
