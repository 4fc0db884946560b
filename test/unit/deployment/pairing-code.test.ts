import { describe, expect, it } from "vitest";
import { newPairingCode } from "../../../durable-objects/deployment/pairing-code.js";
import { normalizePairingCode, PAIRING_ALPHABET, PAIRING_CODE_LENGTH, PairingCode } from "../../../protocol/pairing.js";

/** A random source that hands out the bytes given, in order, as `crypto.getRandomValues` would fill them. */
function bytesFrom(values: number[]) {
  let at = 0;
  return (bytes: Uint8Array<ArrayBuffer>) => {
    for (let i = 0; i < bytes.length; i++) bytes[i] = values[at++ % values.length]!;
    return bytes;
  };
}

describe("pairing codes", () => {
  it("use 32 symbols that cannot be misread as each other", () => {
    expect(new Set(PAIRING_ALPHABET).size).toBe(32);
    expect(PAIRING_ALPHABET.length).toBe(32);
    for (const ambiguous of "01IO") expect(PAIRING_ALPHABET).not.toContain(ambiguous);
  });

  it("are made as ABCD-2345: eight symbols of that alphabet, and differ", () => {
    expect(PAIRING_CODE_LENGTH).toBe(8);
    const codes = Array.from({ length: 200 }, () => newPairingCode());
    for (const code of codes) {
      expect(code).toMatch(/^[^-]{4}-[^-]{4}$/);
      for (const ch of code.replace("-", "")) expect(PAIRING_ALPHABET).toContain(ch);
      expect(normalizePairingCode(code)).toBe(code);
    }
    expect(new Set(codes).size).toBe(codes.length);
  });

  it("pick every symbol with equal odds: each of the 256 byte values maps to a symbol exactly 8 times", () => {
    // Every byte value once, 8 per code: 32 codes. An unbiased mapping gives each symbol 256 / 32 = 8
    // times; a modulo by a size that does not divide 256 (31 symbols: `b % 31`) gives some 9 and
    // some 8, and a symbol outside the alphabet shows up as a miss.
    const random = bytesFrom(Array.from({ length: 256 }, (_, b) => b));
    const seen = new Map<string, number>();
    for (let i = 0; i < 256 / PAIRING_CODE_LENGTH; i++)
      for (const ch of newPairingCode(random).replace("-", "")) seen.set(ch, (seen.get(ch) ?? 0) + 1);
    expect([...seen.keys()].sort()).toEqual([...PAIRING_ALPHABET].sort());
    expect(new Set(seen.values())).toEqual(new Set([8]));
  });

  it("read each byte into the symbol at its position, so the whole alphabet is reachable in order", () => {
    expect(newPairingCode(bytesFrom([0, 1, 2, 3, 4, 5, 6, 7]))).toBe(
      `${PAIRING_ALPHABET.slice(0, 4)}-${PAIRING_ALPHABET.slice(4, 8)}`,
    );
    expect(newPairingCode(bytesFrom([31, 63, 95, 127, 159, 191, 223, 255]))).toBe(
      `${PAIRING_ALPHABET[31]!.repeat(4)}-${PAIRING_ALPHABET[31]!.repeat(4)}`,
    );
  });

  it("are read the way people type them, and refused when they cannot be one", () => {
    expect(normalizePairingCode("abcd2345")).toBe("ABCD-2345");
    expect(normalizePairingCode(" abcd - 2345 ")).toBe("ABCD-2345");
    expect(normalizePairingCode("ABCD-0345")).toBeNull();
    expect(normalizePairingCode("ABCD-234")).toBeNull();
    expect(normalizePairingCode("ABCD-23456")).toBeNull();
    expect(PairingCode.safeParse("ABCD-I345").error?.issues[0]?.message).toContain("like ABCD-2345");
  });
});
