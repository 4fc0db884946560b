import { Identifier } from "@edgeloop/protocol";
import { ChannelPlatform } from "@edgeloop/protocol/channels";
import { MessageTargetFields, refineTarget } from "@edgeloop/protocol/message-target";
import { z } from "zod";
import { jsonVar, oncePerEnv, parseVars, type VarsOf } from "../../runtime/vars.js";
import { WebhookSecrets } from "../../runtime/webhook-secrets.js";

/**
 * Named hooks: `POST /v1/hooks/:name` takes another service's own webhook and turns it into a
 * message for a device, a pool or a fleet of devices. Each hook says how its sender signs (`verify`), where the message
 * goes, and the template that writes it; its secrets are in HOOK_SECRETS under the hook's name.
 */

export const HOOK_SCHEMES = ["github", "standard", "grafana", "token"] as const;
export type HookScheme = (typeof HOOK_SCHEMES)[number];

const HeaderName = z.string().regex(/^[A-Za-z0-9-]{1,64}$/, "an HTTP header name");

export const Hook = z
  .object({
    verify: z.enum(HOOK_SCHEMES),
    agent: Identifier.optional(),
    /** a fleet: several devices, one conversation over all of them (docs/fleet.md) */
    agent_ids: MessageTargetFields.agent_ids,
    pool: Identifier.optional(),
    /** with a pool: `fleet` uses all of its devices at once */
    mode: MessageTargetFields.mode,
    template: z.string().min(1).max(8000),
    /** github: the `X-GitHub-Event` values that start a run; others (and `ping`) are answered and dropped. */
    events: z.array(z.string().min(1).max(64)).max(64).optional(),
    /** token: the header carrying the secret (`Authorization: Bearer <secret>` when it is `authorization`). */
    token_header: HeaderName.default("authorization"),
    /** token: a header naming the delivery, for deduplication; without one the body's hash is the key. */
    delivery_header: HeaderName.optional(),
    /** Append the payload (as JSON, cut to 4000 characters) below the rendered text. */
    append_payload: z.boolean().default(false),
    /** Post the run's reply to this chat (and thread) of a configured channel, through its outbox. */
    reply: z
      .object({
        platform: ChannelPlatform,
        chat: z.string().regex(/^[A-Za-z0-9_.+@-]{1,128}$/, "the platform's chat id"),
        thread: z
          .string()
          .regex(/^[A-Za-z0-9_.+@-]{1,128}$/, "the platform's thread id")
          .optional(),
      })
      .strict()
      .optional(),
  })
  .strict()
  .superRefine((h, ctx) => refineTarget({ ...h, agent_id: h.agent }, ctx, { agent_id: "agent" }));
export type Hook = z.output<typeof Hook>;

export const HooksVarsSchema = z
  .object({
    HOOKS: jsonVar(z.record(z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, "a hook name: letters, digits, - and _"), Hook))
      .optional()
      .describe(
        'JSON naming the hooks `POST /v1/hooks/:name` serves: `{"gh":{"verify":"github","agent":"pi-1","template":' +
          '"{{@event}} on {{repository.full_name}}"}}`; `verify` is `github`, `standard`, `grafana` or `token`; ' +
          '`agent`, `agent_ids` (a fleet) or `pool` (with `mode: "fleet"`, all its devices); optional `events`, ' +
          "`token_header`, `delivery_header`, `append_payload`, and " +
          '`reply` (`{"platform":"slack","chat":"C0123","thread":"1700000000.000100"}`: the run\'s reply is posted there) ' +
          "(docs/channels.md#named-hooks).",
      ),
    HOOK_SECRETS: WebhookSecrets.describe(
      "Secret. Each hook's secret, `name:secret`, comma-separated; a name repeated is a rotation; " +
        "`whsec_<base64>` is decoded for `standard`.",
    ),
  })
  .superRefine((vars, ctx) => {
    const named = new Set(vars.HOOK_SECRETS.map((s) => s.sender));
    for (const name of Object.keys(vars.HOOKS ?? {})) {
      if (!named.has(name))
        ctx.addIssue({ code: "custom", path: ["HOOK_SECRETS"], message: `hook '${name}' has no secret (name:secret)` });
    }
  });

export type HooksVars = VarsOf<typeof HooksVarsSchema.shape>;
export type HooksSettings = z.output<typeof HooksVarsSchema>;

export const hooksSettings = oncePerEnv((env: HooksVars) => parseVars(HooksVarsSchema, env));
