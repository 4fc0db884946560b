import { z } from "zod";
import { Identifier, ToolName } from "./ids.js";

/**
 * Approval rules: a person's decision on an approval-required call, remembered for the whole
 * deployment so the same kind of call is not asked about again. Shared by the API
 * (`/v1/approval-rules`, `POST …/approvals/:call` with a `scope`), the rules' Durable Object, the
 * loop core that applies them, and the CLI.
 */

/** A pattern is a regular expression tested against the call's JSON arguments. */
const Pattern = z
  .string()
  .min(1)
  .max(500)
  .refine((p) => {
    try {
      new RegExp(p);
      return true;
    } catch {
      return false;
    }
  }, "not a valid regular expression");

/** An expiry: an ISO date or unix milliseconds in the future, or a number of seconds from now. */
const Expiry = {
  expires_at: z.union([z.number().int().positive(), z.string().datetime({ offset: true })]).optional(),
  expires_in_seconds: z
    .number()
    .int()
    .min(1)
    .max(10 * 365 * 86_400)
    .optional(),
};

/** A stored rule, as the API lists it and the loop applies it. */
export const ApprovalRule = z.object({
  rule_id: z.string(),
  /** allow: the call runs without asking; deny: it is blocked without asking */
  effect: z.enum(["allow", "deny"]),
  /** the device the rule is for; null = every device */
  agent_id: Identifier.nullable(),
  tool: ToolName,
  /** null: every call of the tool; else only calls whose JSON arguments match */
  pattern: z.string().nullable(),
  expires_at: z.number().nullable(),
  created_at: z.number(),
  /** "api", or the conversation and call whose decision made it */
  created_by: z.string(),
  reason: z.string().nullable(),
  revoked_at: z.number().nullable(),
  /** the scoped key (`key:<id>`) whose conversations alone it answers for; null: every conversation */
  owner: z.string().nullable(),
});
export type ApprovalRule = z.infer<typeof ApprovalRule>;

/** The part of a rule the loop needs to apply it. */
export type ApprovalRuleMatch = Pick<
  ApprovalRule,
  "rule_id" | "effect" | "agent_id" | "tool" | "pattern" | "expires_at"
>;

/** `POST /v1/approval-rules`: make a rule without waiting for a call to decide. */
export const ApprovalRuleRequest = z
  .object({
    effect: z.enum(["allow", "deny"]),
    agent_id: Identifier.optional(),
    tool: ToolName,
    pattern: Pattern.optional(),
    reason: z.string().max(2000).optional(),
    ...Expiry,
  })
  .strict()
  .refine((r) => r.expires_at === undefined || r.expires_in_seconds === undefined, {
    message: "give expires_at or expires_in_seconds, not both",
    path: ["expires_at"],
  });
export type ApprovalRuleRequest = z.infer<typeof ApprovalRuleRequest>;

/**
 * `POST /v1/conversations/:id/approvals/:tool_call_id`. `scope` is `once` (the default: this call
 * only), `always` (remember the decision for this tool on this device, or with `pattern` only for
 * calls whose arguments match), or `deny_always` (the same as `approve: false, scope: "always"`).
 */
export const ApprovalDecision = z
  .object({
    approve: z.boolean().optional(),
    reason: z.string().max(2000).optional(),
    scope: z
      .enum(["once", "always", "deny_always"])
      .default("once")
      .describe(
        "`once`: this call only; `always`: remember the decision for this tool on this device (with `pattern`, " +
          'only for calls whose arguments match); `deny_always`: as `approve: false, scope: "always"`',
      ),
    pattern: Pattern.optional(),
    ...Expiry,
  })
  .strict()
  .superRefine((d, ctx) => {
    if (d.scope === "deny_always" && d.approve === true)
      ctx.addIssue({ code: "custom", path: ["approve"], message: "deny_always cannot approve" });
    if (d.scope !== "deny_always" && d.approve === undefined)
      ctx.addIssue({ code: "custom", path: ["approve"], message: "required (true or false)" });
    if (
      d.scope === "once" &&
      (d.pattern !== undefined || d.expires_at !== undefined || d.expires_in_seconds !== undefined)
    )
      ctx.addIssue({ code: "custom", path: ["scope"], message: "pattern and expiry need scope always or deny_always" });
    if (d.expires_at !== undefined && d.expires_in_seconds !== undefined)
      ctx.addIssue({
        code: "custom",
        path: ["expires_at"],
        message: "give expires_at or expires_in_seconds, not both",
      });
  });
export type ApprovalDecision = z.infer<typeof ApprovalDecision>;

/** When a rule made at `now` from `expires_at` / `expires_in_seconds` stops applying; null = never. */
export function ruleExpiry(
  r: { expires_at?: number | string | undefined; expires_in_seconds?: number | undefined },
  now: number,
): number | null {
  if (r.expires_in_seconds !== undefined) return now + r.expires_in_seconds * 1000;
  if (r.expires_at === undefined) return null;
  return typeof r.expires_at === "number" ? r.expires_at : Date.parse(r.expires_at);
}
