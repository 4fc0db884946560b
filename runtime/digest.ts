import { toHex } from "@edgeloop/protocol/webhook-signatures";

/** SHA-256 of a string as hex: request fingerprints and the stored hashes of issued tokens. */
export async function sha256Hex(text: string): Promise<string> {
  return toHex(new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text))));
}
