import { z } from "zod";

/**
 * Onboarding an OpenClaw node (docs/openclaw-nodes.md#onboarding), as the admin API takes and
 * answers it: the CLI and the dashboard validate the answers with these, and the OpenAPI document
 * describes the routes with them.
 */

export const NodeSetupRequest = z.object({
  ttl_seconds: z
    .number()
    .int()
    .min(60)
    .max(7 * 24 * 3600)
    .default(900)
    .describe("how long the setup code and join URL work (they work once)"),
});
export type NodeSetupRequest = z.infer<typeof NodeSetupRequest>;

export const NodeSetup = z.looseObject({
  agent_id: z.string(),
  /** the node's WebSocket URL, as the setup code carries it */
  gateway_url: z.string(),
  /** OpenClaw's setup code (base64url JSON: url, bootstrapToken, expiresAtMs) */
  setup_code: z.string(),
  join_url: z.string(),
  expires_at: z.number(),
  /** the lines to run on the new device: either one */
  run: z.string(),
  connect: z.string(),
});
export type NodeSetup = z.infer<typeof NodeSetup>;

/** The join URL's answer, in OpenClaw's setup-payload shape (`openclaw connect` fetches it). */
export const JoinPayload = z.object({ url: z.string(), bootstrapToken: z.string(), expiresAtMs: z.number() });

/** OpenClaw's setup code: the payload as unpadded base64url JSON. */
export function encodeSetupCode(payload: z.infer<typeof JoinPayload>): string {
  const bytes = new TextEncoder().encode(JSON.stringify(payload));
  let bin = "";
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}
