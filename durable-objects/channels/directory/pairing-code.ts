/** The same code is sent again to a user who keeps writing, at most this often. */
export const RESEND_CODE_MS = 10 * 60_000;

/** Letters and digits that cannot be misread for one another (no 0/O, 1/I/L). */
const ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789";

/**
 * A pairing code an unknown chat user is given, `XXXX-XXXX`: 8 symbols of 31 (about 40 bits),
 * enough that nobody guesses a waiting code within its hour, short enough to read out to an admin.
 */
export function pairingCode(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(8));
  const symbols = Array.from(bytes, (b) => ALPHABET[b % ALPHABET.length]).join("");
  return `${symbols.slice(0, 4)}-${symbols.slice(4)}`;
}
