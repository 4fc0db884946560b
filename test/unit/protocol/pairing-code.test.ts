import { describe, expect, it } from "vitest";
import { newPairingCode } from "../../../durable-objects/pairing/pairing-code.js";
import { normalizePairingCode, PAIRING_ALPHABET, PairingCode } from "../../../protocol/pairing.js";

describe("pairing codes", () => {
  it("use 32 symbols that cannot be misread as each other", () => {
    expect(new Set(PAIRING_ALPHABET).size).toBe(32);
    for (const ambiguous of "01IO") expect(PAIRING_ALPHABET).not.toContain(ambiguous);
  });

  it("are made as ABCD-2345 from that alphabet, and differ", () => {
    const codes = Array.from({ length: 200 }, newPairingCode);
    for (const code of codes) {
      expect(code).toMatch(/^[^-]{4}-[^-]{4}$/);
      for (const ch of code.replace("-", "")) expect(PAIRING_ALPHABET).toContain(ch);
      expect(normalizePairingCode(code)).toBe(code);
    }
    expect(new Set(codes).size).toBe(codes.length);
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
