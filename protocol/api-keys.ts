import { z } from "zod";
import { Identifier } from "./ids.js";

/**
 * Scoped API keys (tenants): keys an admin issues, each limited to some devices (`agents`, `pools`)
 * and some kinds of requests (`scopes`), and seeing only the conversations it started. Shared by
 * the API (`/v1/keys`), the keys' Durable Object, the front door and the CLI.
 */

/** What a key may do. A key made without `scopes` may do all of it (within its devices). */
export const KEY_SCOPES = [
  /** POST /v1/messages; the MCP tool send_message */
  "messages",
  /** list, read and follow its conversations (events, canvas); the MCP tool get_conversation */
  "conversations:read",
  /** approve, answer and cancel in its conversations */
  "conversations:write",
  /** /v1/schedules: its own schedules */
  "schedules",
  /** /v1/approval-rules: its own rules, for its devices */
  "approval_rules",
  /** GET /v1/devices (its devices only); the MCP tool list_devices */
  "devices:read",
  /** POST /mcp at all */
  "mcp",
  /** call its devices' tools directly through MCP (`{agent_id}__{tool}`) */
  "tools",
] as const;
export const KeyScope = z.enum(KEY_SCOPES);
export type KeyScope = z.infer<typeof KeyScope>;

/** `"*"` in `agents`: every device (the key still sees only its own conversations). */
export const ANY_AGENT = "*";

/** `POST /v1/keys`. At least one device: an agent, `"*"`, or a pool. */
export const CreateKeyRequest = z
  .object({
    name: z
      .string()
      .min(1)
      .max(64)
      .regex(/^[\p{L}\p{N} ._:@/-]+$/u, "letters, digits, spaces and . _ : @ / - only"),
    agents: z
      .array(z.union([z.literal(ANY_AGENT), Identifier]))
      .max(256)
      .default([]),
    pools: z.array(Identifier).max(64).default([]),
    scopes: z.array(KeyScope).min(1).max(KEY_SCOPES.length).optional(),
  })
  .strict()
  .superRefine((k, ctx) => {
    if (k.agents.length === 0 && k.pools.length === 0)
      ctx.addIssue({
        code: "custom",
        path: ["agents"],
        message: 'give at least one agent ("*" for every device) or pool',
      });
  });
export type CreateKeyRequest = z.input<typeof CreateKeyRequest>;

/** A key as `GET /v1/keys` lists it: never the key itself, which is only ever in the 201 answer. */
export const ApiKeyView = z.object({
  key_id: z.string(),
  name: z.string(),
  agents: z.array(z.string()),
  pools: z.array(z.string()),
  scopes: z.array(KeyScope),
  created_at: z.number(),
  last_used_at: z.number().nullable(),
  revoked_at: z.number().nullable(),
});
export type ApiKeyView = z.infer<typeof ApiKeyView>;

/** The 201 answer of `POST /v1/keys`: `key` is shown this once; only its SHA-256 is kept. */
export const IssuedKey = ApiKeyView.extend({ key: z.string() });
export type IssuedKey = z.infer<typeof IssuedKey>;

/** Key ids look like `key_` + 16 hex digits; keys themselves start with `edk_`. */
export const KeyId = z.string().regex(/^key_[0-9a-f]{16}$/, "key ids look like key_<16 hex digits>");
export const KEY_PREFIX = "edk_";
