import { z } from "zod";
import { ANY_AGENT, KeyScope } from "./api-keys.js";
import { Identifier } from "./ids.js";

/**
 * Chat channels (Telegram, Slack, Discord, WhatsApp): who in a chat may reach which devices. A
 * grant binds a chat user, or a whole group chat, to devices the way a scoped key is bound
 * (`agents`, `pools`, `scopes`); `target` is the device or pool a new conversation in that chat
 * runs on. Shared by the admin API (`/v1/channels/…`), the channel objects and the CLI.
 */
export const CHANNEL_PLATFORMS = ["telegram", "slack", "discord", "whatsapp"] as const;
export const ChannelPlatform = z.enum(CHANNEL_PLATFORMS);
export type ChannelPlatform = z.infer<typeof ChannelPlatform>;

/** A platform's webhook body is small (Telegram's updates are a few KB); a body declared larger is refused (413). */
export const CHANNEL_WEBHOOK_MAX_BYTES = 1_000_000;

/** `user:<platform user id>` or `chat:<platform chat id>` (everyone in that group chat). */
export const GrantSubject = z.string().regex(/^(user|chat):[A-Za-z0-9_.:+@-]{1,128}$/, "user:<id> or chat:<id>");

/** `pi-1` (a device) or `pool:kitchen`. */
export const ChatTarget = z.string().regex(/^(pool:)?[A-Za-z0-9._:-]{1,128}$/, "an agent id or pool:<name>");

const GrantBody = {
  agents: z
    .array(z.union([z.literal(ANY_AGENT), Identifier]))
    .max(256)
    .default([]),
  pools: z.array(Identifier).max(64).default([]),
  /** default: messages and its own conversations */
  scopes: z.array(KeyScope).min(1).optional(),
  /** where a chat's new conversation runs; default: the first pool, else the first agent */
  target: ChatTarget.optional(),
};
const refineGrant = (g: { agents: string[]; pools: string[] }, ctx: z.RefinementCtx) => {
  if (g.agents.length + g.pools.length === 0)
    ctx.addIssue({
      code: "custom",
      path: ["agents"],
      message: 'give at least one agent ("*" for every device) or pool',
    });
};

/** `POST /v1/channels/pairings/:code/approve`: what the paired user may reach. */
export const ApprovePairingRequest = z.object(GrantBody).strict().superRefine(refineGrant);
export type ApprovePairingRequest = z.input<typeof ApprovePairingRequest>;

/** `POST /v1/channels/grants`: bind a user or a group chat without a pairing code. */
export const ChannelGrantRequest = z
  .object({ platform: ChannelPlatform, subject: GrantSubject, name: z.string().max(128).optional(), ...GrantBody })
  .strict()
  .superRefine(refineGrant);
export type ChannelGrantRequest = z.input<typeof ChannelGrantRequest>;

/** `POST /v1/channels/:platform/register`: point the platform at this URL, or only say how (`print`). */
export const RegisterWebhookRequest = z
  .object({
    url: z
      .string()
      .url()
      .startsWith(
        "https://",
        "the platform only calls https URLs: for a worker on this machine, put a tunnel in front of it " +
          "(e.g. `cloudflared tunnel --url http://127.0.0.1:8787`) and pass its address with --webhook-url https://…",
      ),
    print: z
      .boolean()
      .default(false)
      .describe("only answer how to register by hand (the platform's call, or its console's steps); change nothing"),
  })
  .strict();
export type RegisterWebhookRequest = z.input<typeof RegisterWebhookRequest>;

export type ChannelGrant = {
  platform: ChannelPlatform;
  subject: string;
  name: string;
  agents: string[];
  pools: string[];
  scopes: KeyScope[];
  target: string | null;
  created_at: number;
};

export type PendingPairing = {
  code: string;
  platform: ChannelPlatform;
  user_id: string;
  user_name: string;
  chat_id: string;
  thread_id: string | null;
  created_at: number;
  expires_at: number;
};

export type ChannelAuditEntry = {
  at: number;
  platform: ChannelPlatform;
  user_id: string;
  user_name: string;
  chat_id: string;
  action: string;
  detail: string;
};

/** `GET /v1/channels`: each platform's state, pairings waiting, grants and recent refusals. */
export type ChannelsStatus = {
  platforms: { platform: ChannelPlatform; configured: boolean; webhook_path: string; error?: string }[];
  pairings: PendingPairing[];
  grants: ChannelGrant[];
  audit: ChannelAuditEntry[];
};
