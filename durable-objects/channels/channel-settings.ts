import { CHANNEL_PLATFORMS } from "@edgeloop/protocol/channels";
import { z } from "zod";
import { oncePerEnv, parseVars, type VarsOf } from "../../runtime/vars.js";

/** `platform:user id`, the platform one of the list's. */
const APPROVER = new RegExp(`^(${CHANNEL_PLATFORMS.join("|")}):[A-Za-z0-9_.+@-]{1,128}$`);

/** `telegram:12345,slack:U0123` → the set of `platform:user id` that may press Approve. */
const Approvers = z
  .string()
  .default("")
  .transform((raw, ctx) => {
    const approvers = new Set<string>();
    for (const entry of raw
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean)) {
      if (!APPROVER.test(entry)) {
        ctx.addIssue({ code: "custom", message: `entry '${entry.slice(0, 30)}' is not platform:user_id` });
        return z.NEVER;
      }
      approvers.add(entry);
    }
    return approvers;
  });

/** Settings every chat channel shares. Each platform's own settings sit in its module. */
export const ChannelVarsSchema = z.object({
  CHANNEL_APPROVERS: Approvers.describe(
    "Chat users who may press Approve / Always / Deny on an approval card, as comma-separated " +
      "`platform:user_id` (`telegram:12345,slack:U0123`). Separate from grants: a user who may talk to a device " +
      "may not approve its tool calls unless listed here. A press by anyone else is refused, audited and counted.",
  ),
});
export type ChannelVars = VarsOf<typeof ChannelVarsSchema.shape>;
export type ChannelSettings = z.output<typeof ChannelVarsSchema>;

export const channelSettings = oncePerEnv((env: ChannelVars) => parseVars(ChannelVarsSchema, env));
