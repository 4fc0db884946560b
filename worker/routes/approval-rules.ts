import { Identifier, ToolName } from "@edgeloop/protocol";
import { ANY_AGENT } from "@edgeloop/protocol/api-keys";
import { ApprovalRuleRequest, ruleExpiry } from "@edgeloop/protocol/approval-rules";
import { Hono } from "hono";
import { z } from "zod";
import { deploymentOf } from "../../durable-objects/addresses.js";
import { forgetRules } from "../../durable-objects/deployment/in-force.js";
import { canSee, mayReach, type Reach } from "../../runtime/access.js";
import { invalidQuery, problemResponse } from "../../runtime/problem.js";
import type { AppEnv } from "../env.js";
import { authorize } from "../middleware/authorize.js";
import { countRejections } from "../middleware/count-rejections.js";
import { readJsonBody } from "../read-body.js";

/**
 * `/v1/approval-rules`: the deployment's remembered approval decisions. They are made by a
 * decision with scope `always` / `deny_always` (POST …/approvals/:call) or here directly, and
 * answer approval-required calls without asking (durable-objects/conversation/core/approval-rules.ts).
 *
 *   GET    /v1/approval-rules?agent_id=&tool=&include_inactive=true → {rules}
 *   POST   /v1/approval-rules {effect, tool, agent_id?, pattern?, expires_*?, reason?} → 201 rule
 *   GET    /v1/approval-rules/:id                                    → the rule
 *   DELETE /v1/approval-rules/:id                                    → {rule_id, revoked}
 *
 * A scoped key (scope `approval_rules`) sees and revokes only the rules it made, makes them only
 * for its devices (`agent_id` required unless it may reach every device), and its rules answer
 * only for its own conversations (`owner`); any other rule is 404.
 */
export const approvalRules = new Hono<AppEnv>();

approvalRules.use("*", countRejections("/v1/approval-rules"));
approvalRules.use("*", authorize("approval_rules"));

const noRule = (id: string) => problemResponse(404, "Not found", `no approval rule '${id}'`);

const ListQuery = z
  .object({
    agent_id: Identifier.optional(),
    tool: ToolName.optional(),
    include_inactive: z.enum(["true", "false"]).optional(),
  })
  .strict();

approvalRules.get("/", async (c) => {
  const q = ListQuery.safeParse(c.req.query());
  if (!q.success) return invalidQuery(q.error);
  const { include_inactive, ...filter } = q.data;
  const principal = c.var.principal;
  const rules = await deploymentOf(c.env).listRules({
    ...filter,
    include_inactive: include_inactive === "true",
    ...(principal.scoped ? { owner: principal.id } : {}),
  });
  return c.json({ rules });
});

approvalRules.post("/", async (c) => {
  const body = await readJsonBody(c, ApprovalRuleRequest);
  if (!body.ok) return body.response;
  const r = body.value;
  const principal = c.var.principal;
  const outside = principal.scoped ? outsideReach(principal.reach, r.agent_id) : null;
  if (outside) return problemResponse(403, "Forbidden", outside, { errors: [{ path: "agent_id", message: outside }] });
  const expires_at = ruleExpiry(r, Date.now());
  if (expires_at !== null && expires_at <= Date.now())
    return problemResponse(400, "Invalid rule", "the expiry is in the past", {
      errors: [{ path: "expires_at", message: "must be in the future" }],
    });
  const rule = await deploymentOf(c.env).createRule({
    effect: r.effect,
    agent_id: r.agent_id ?? null,
    tool: r.tool,
    pattern: r.pattern ?? null,
    expires_at,
    reason: r.reason ?? null,
    created_by: principal.scoped ? principal.id : "api",
    owner: principal.scoped ? principal.id : null,
  });
  forgetRules();
  return c.json(rule, 201);
});

approvalRules.get("/:id", async (c) => {
  const id = c.req.param("id");
  if (!Identifier.safeParse(id).success) return problemResponse(400, "Invalid rule id");
  const rule = await deploymentOf(c.env).getRule(id);
  return rule && canSee(c.var.principal, rule.owner) ? c.json(rule) : noRule(id);
});

approvalRules.delete("/:id", async (c) => {
  const id = c.req.param("id");
  if (!Identifier.safeParse(id).success) return problemResponse(400, "Invalid rule id");
  const principal = c.var.principal;
  if (principal.scoped) {
    const rule = await deploymentOf(c.env).getRule(id);
    if (!rule || !canSee(principal, rule.owner)) return noRule(id);
  }
  const res = await deploymentOf(c.env).revokeRule(id);
  forgetRules();
  if (!res.found) return noRule(id);
  return c.json({ rule_id: id, revoked: true, already_revoked: !res.revoked });
});

/** Why a scoped principal may not make a rule for this device (none named: every device), or null. */
function outsideReach(reach: Reach, agentId: string | undefined): string | null {
  if (agentId === undefined)
    return reach === ANY_AGENT ? null : "agent_id is required: this key's rules are for its own devices";
  return mayReach(reach, agentId) ? null : `agent '${agentId}' is not one this credential may message`;
}
