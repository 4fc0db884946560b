import { z } from "zod";
import { Identifier } from "./ids.js";

/**
 * Pairing: a device asks to join (`POST /v1/pairing`), shows a short code, and waits; an admin
 * approves the code; the device then collects its own device token once. Shared by the worker,
 * the agent, the bridge and the CLI (docs/security.md, "Pairing").
 */

/**
 * The code's alphabet: digits and capitals without 0, 1, I and O, so a code read aloud or copied
 * from a small screen cannot be mistyped into another one. 32 symbols: 5 bits each.
 */
export const PAIRING_ALPHABET = "23456789ABCDEFGHJKLMNPQRSTUVWXYZ";
/** Eight symbols (40 bits), shown as `ABCD-2345`. */
export const PAIRING_CODE_LENGTH = 8;

/** A code as people type it (any case, with or without the dash or spaces) in its one shape, or null. */
export function normalizePairingCode(text: string): string | null {
  const plain = text.toUpperCase().replace(/[\s-]/g, "");
  if (plain.length !== PAIRING_CODE_LENGTH) return null;
  for (const ch of plain) if (!PAIRING_ALPHABET.includes(ch)) return null;
  return `${plain.slice(0, 4)}-${plain.slice(4)}`;
}

export const PairingCode = z
  .string()
  .transform((text, ctx) => {
    const code = normalizePairingCode(text);
    if (code === null) {
      ctx.addIssue({ code: "custom", message: "a pairing code is 8 letters and digits, like ABCD-2345" });
      return z.NEVER;
    }
    return code;
  })
  .describe("The code the device shows, like `ABCD-2345` (case and dash do not matter)");

/**
 * Who asks. `agent`: edgeloop-agent; `bridge-device`: a device behind the MQTT bridge (the bridge
 * holds its token); `openclaw`: an OpenClaw node (docs/openclaw-nodes.md), which names a public key.
 */
export const PAIRING_KINDS = ["agent", "bridge-device", "openclaw"] as const;
export const PairingKind = z.enum(PAIRING_KINDS);
export type PairingKind = z.infer<typeof PairingKind>;

/** `POST /v1/pairing`: what the device proposes. The admin sees all of it before approving. */
export const PairingRequestBody = z
  .object({
    agent_id: Identifier.describe("The device id it asks for; the admin may approve it under another"),
    kind: PairingKind.default("agent"),
    label: z
      .string()
      .max(200)
      .optional()
      .describe("What the device says about itself (host name, bridge id), shown to the admin"),
    public_key: z.string().min(1).max(512).optional().describe("The device's public key, when it has one"),
  })
  .strict();
export type PairingRequestBody = z.infer<typeof PairingRequestBody>;

/** The answer to `POST /v1/pairing`: the code to show, and the secret only this device collects with. */
export const PairingOpened = z.looseObject({
  code: z.string(),
  claim_secret: z
    .string()
    .describe("Send as `Authorization: Bearer …` to `POST /v1/pairing/claim`; shown once, never to the admin"),
  expires_at: z.number(),
  poll_after_ms: z.number().int().positive(),
});
export type PairingOpened = z.infer<typeof PairingOpened>;

/** `POST /v1/pairing/claim`: still waiting, refused, or (once) the device's own token. */
export const PairingClaim = z.discriminatedUnion("status", [
  z.looseObject({ status: z.literal("pending"), expires_at: z.number(), poll_after_ms: z.number().int().positive() }),
  z.looseObject({ status: z.literal("denied") }),
  z.looseObject({
    status: z.literal("approved"),
    agent_id: z.string(),
    token_id: z.string(),
    token: z.string().describe("The device's own token, in this answer only"),
  }),
]);
export type PairingClaim = z.infer<typeof PairingClaim>;

/** A pairing request as the admin lists it: never its claim secret. */
export const PairingView = z.looseObject({
  code: z.string(),
  agent_id: z.string(),
  kind: PairingKind,
  label: z.string().nullable(),
  public_key: z.string().nullable(),
  created_at: z.number(),
  expires_at: z.number(),
  status: z.enum(["pending", "approved", "denied", "claimed"]),
  decided_by: z.string().nullable(),
  decided_at: z.number().nullable(),
  token_id: z.string().nullable(),
  known_device: z
    .boolean()
    .optional()
    .describe("The id already has a device: approving gives the requester a token for that device"),
});
export type PairingView = z.infer<typeof PairingView>;
export const PairingList = z.looseObject({ pending: z.array(PairingView) });

/** `POST /v1/pairing/:code/approve`: optionally under another id than the device asked for. */
export const PairingApproveBody = z
  .object({ agent_id: Identifier.optional().describe("Approve under this device id instead of the one asked for") })
  .strict();
export type PairingApproveBody = z.infer<typeof PairingApproveBody>;
