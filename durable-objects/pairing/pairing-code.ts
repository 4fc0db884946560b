import { PAIRING_ALPHABET, PAIRING_CODE_LENGTH } from "@edgeloop/protocol/pairing";

/**
 * A fresh pairing code, `ABCD-2345`. 32 symbols divide 256, so `byte & 31` picks each one with
 * equal odds. 40 bits: guessing a live code is hopeless, and a code alone is worth nothing anyway
 * (the token goes only to the holder of the request's claim secret).
 */
export function newPairingCode(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(PAIRING_CODE_LENGTH));
  const plain = Array.from(bytes, (b) => PAIRING_ALPHABET[b & 31]).join("");
  return `${plain.slice(0, 4)}-${plain.slice(4)}`;
}
