import { createHmac, generateKeyPairSync, sign } from "node:crypto";

/**
 * Requests signed exactly as each platform signs them, written from the platforms' public specs with
 * Node's crypto (not edgeloop's own verifiers), so a test proves the verifier against the spec.
 */

/** Slack (api.slack.com/authentication/verifying-requests-from-slack): v0 HMAC over `v0:{ts}:{body}`. */
export function slackHeaders(signingSecret: string, body: string, timestamp = Math.floor(Date.now() / 1000)) {
  const signature = createHmac("sha256", signingSecret).update(`v0:${timestamp}:${body}`).digest("hex");
  return { "x-slack-request-timestamp": String(timestamp), "x-slack-signature": `v0=${signature}` };
}

/** Meta (WhatsApp Cloud API, and GitHub's identical scheme): `sha256=<hex HMAC(secret, raw body)>`. */
export function hubSignature256(secret: string, body: string): string {
  return `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;
}

/** A Discord application's key pair: the public key as the developer portal shows it (64 hex). */
export function discordKeyPair() {
  const { publicKey, privateKey } = generateKeyPairSync("ed25519");
  // The raw 32-byte key is the last 32 bytes of its SPKI DER encoding.
  const publicKeyHex = publicKey.export({ format: "der", type: "spki" }).subarray(-32).toString("hex");
  /** Discord's headers: Ed25519 over `timestamp + body`, hex. */
  const headers = (body: string, timestamp = Math.floor(Date.now() / 1000)) => ({
    "x-signature-timestamp": String(timestamp),
    "x-signature-ed25519": sign(null, Buffer.from(`${timestamp}${body}`), privateKey).toString("hex"),
  });
  return { publicKeyHex, headers };
}
