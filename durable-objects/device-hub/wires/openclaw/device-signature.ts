import { toHex } from "@edgeloop/protocol/webhook-signatures";
import type { ConnectParams, DeviceIdentity } from "./gateway-frames.js";

/**
 * A node proves its identity by signing the gateway's challenge with its Ed25519 key
 * (OpenClaw's packages/gateway-client/src/device-auth.ts): the `v3` payload binds the device,
 * client, role, scopes, signing time, the token it presents, the nonce, platform and device
 * family; `v2` (still accepted there) lacks the last two. The device id is the SHA-256 of the raw
 * public key, so an id cannot be claimed with another key.
 */

/** How far a signature's time may be from the challenge's. The node signs with the challenge's `ts`. */
export const SIGNATURE_SKEW_MS = 2 * 60_000;

export type SignatureCheck =
  | { ok: true; deviceId: string; publicKey: string }
  | { ok: false; code: string; reason: string; message: string };

/** Lower-case ASCII letters only, as OpenClaw's normalizeDeviceMetadataForAuth does. */
function normalizeMetadata(value: string | undefined): string {
  const trimmed = (value ?? "").trim();
  return trimmed.replace(/[A-Z]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 32));
}

type SignedFields = Pick<ConnectParams, "client" | "role" | "scopes"> & { device: DeviceIdentity };

export function signaturePayloads(p: SignedFields, token: string): { v3: string; v2: string } {
  const common = [
    p.device.id,
    p.client.id,
    p.client.mode,
    p.role,
    p.scopes.join(","),
    String(p.device.signedAt),
    token,
    p.device.nonce,
  ];
  return {
    v3: ["v3", ...common, normalizeMetadata(p.client.platform), normalizeMetadata(p.client.deviceFamily)].join("|"),
    v2: ["v2", ...common].join("|"),
  };
}

/**
 * Base64url or plain base64 (a PEM's body is plain base64, and OpenClaw's decoder takes either), padded or
 * not; null for anything else.
 */
export function base64UrlToBytes(text: string): Uint8Array<ArrayBuffer> | null {
  if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(text)) return null;
  try {
    // atob takes base64 with or without its padding; the test above keeps out the whitespace it would skip.
    const bin = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
    return Uint8Array.from(bin, (c) => c.charCodeAt(0));
  } catch {
    return null;
  }
}

export function bytesToBase64Url(bytes: Uint8Array): string {
  let bin = "";
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replaceAll("=", "");
}

/** The raw 32-byte key from OpenClaw's forms: raw base64/base64url, or an SPKI PEM. */
export function rawEd25519Key(publicKey: string): Uint8Array<ArrayBuffer> | null {
  const pem = /-----BEGIN PUBLIC KEY-----([\s\S]+?)-----END PUBLIC KEY-----/.exec(publicKey);
  const bytes = base64UrlToBytes((pem ? pem[1]! : publicKey).replace(/\s/g, ""));
  if (!bytes) return null;
  if (bytes.length === 32) return bytes;
  // SPKI for Ed25519: a fixed 12-byte prefix, then the key.
  const prefix = [0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x03, 0x21, 0x00];
  if (bytes.length === 44 && prefix.every((b, i) => bytes[i] === b)) return bytes.slice(12);
  return null;
}

export async function deviceIdOf(raw: Uint8Array<ArrayBuffer>): Promise<string> {
  return toHex(new Uint8Array(await crypto.subtle.digest("SHA-256", raw)));
}

const fail = (code: string, reason: string, message: string): SignatureCheck => ({ ok: false, code, reason, message });

/**
 * Checks the node's signature over this connection's challenge (`nonce`, issued at `challengeTs`),
 * with the token it presents (empty when none). The codes are OpenClaw's DEVICE_AUTH_* details.
 */
export async function verifyConnectSignature(
  p: SignedFields,
  token: string,
  nonce: string,
  challengeTs: number,
): Promise<SignatureCheck> {
  const d = p.device;
  if (d.nonce !== nonce) return fail("DEVICE_AUTH_NONCE_MISMATCH", "device-nonce-mismatch", "device nonce mismatch");
  if (Math.abs(d.signedAt - challengeTs) > SIGNATURE_SKEW_MS)
    return fail("DEVICE_AUTH_SIGNATURE_EXPIRED", "device-signature-stale", "device signature expired");
  const raw = rawEd25519Key(d.publicKey);
  if (!raw) return fail("DEVICE_AUTH_PUBLIC_KEY_INVALID", "device-public-key", "device public key invalid");
  const deviceId = await deviceIdOf(raw);
  if (deviceId !== d.id)
    return fail("DEVICE_AUTH_DEVICE_ID_MISMATCH", "device-id-mismatch", "device identity mismatch");
  const signature = base64UrlToBytes(d.signature);
  if (signature?.length !== 64)
    return fail("DEVICE_AUTH_SIGNATURE_INVALID", "device-signature", "device signature invalid");
  const key = await crypto.subtle.importKey("raw", raw, { name: "Ed25519" }, false, ["verify"]);
  const payloads = signaturePayloads(p, token);
  for (const payload of [payloads.v3, payloads.v2]) {
    if (await crypto.subtle.verify({ name: "Ed25519" }, key, signature!, new TextEncoder().encode(payload)))
      return { ok: true, deviceId, publicKey: bytesToBase64Url(raw) };
  }
  return fail("DEVICE_AUTH_SIGNATURE_INVALID", "device-signature", "device signature invalid");
}
