import { PAIRING_ALPHABET, PAIRING_CODE_LENGTH } from "@edgeloop/protocol/pairing";

/** Fills `bytes` with random values; `crypto.getRandomValues` unless a test hands in its own. */
export type RandomBytes = (bytes: Uint8Array<ArrayBuffer>) => Uint8Array<ArrayBuffer>;

const cryptoRandom: RandomBytes = (bytes) => crypto.getRandomValues(bytes);

/**
 * A fresh pairing code, `ABCD-2345`: the one generator for a device's pairing request and a chat
 * user's code alike. 32 symbols divide 256, so `byte & 31` picks each one with equal odds (a
 * modulo by anything that does not divide 256 would favour the first symbols). 40 bits: guessing a
 * live code is hopeless, and a code alone is worth nothing anyway (a device's token goes only to the
 * holder of its claim secret; a chat user's grant only through an admin's approval).
 */
export function newPairingCode(random: RandomBytes = cryptoRandom): string {
  const bytes = random(new Uint8Array(PAIRING_CODE_LENGTH));
  const plain = Array.from(bytes, (b) => PAIRING_ALPHABET[b & 31]).join("");
  return `${plain.slice(0, 4)}-${plain.slice(4)}`;
}
