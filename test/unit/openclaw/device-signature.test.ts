import { createPublicKey } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  base64UrlToBytes,
  bytesToBase64Url,
  rawEd25519Key,
  SIGNATURE_SKEW_MS,
  signaturePayloads,
  verifyConnectSignature,
} from "../../../durable-objects/device-hub/wires/openclaw/device-signature.js";
import { makeNodeKey } from "../../helpers/openclaw-node.js";

/**
 * The OpenClaw node's proof of its key (OpenClaw's packages/gateway-client/src/device-auth.ts): each check
 * of verifyConnectSignature on its own, the key forms a node may name, and the bounds of the time window.
 */
const b64url = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64url");

type Fields = Parameters<typeof verifyConnectSignature>[0];

async function node(opts: { publicKey?: (raw: Uint8Array) => string; signedAt?: number; platform?: string } = {}) {
  const key = await makeNodeKey();
  const fields: Fields = {
    client: { id: "node-host", mode: "node", platform: opts.platform ?? "Linux", deviceFamily: "Pi" },
    role: "node",
    scopes: ["x"],
    device: {
      id: key.deviceId,
      publicKey: (opts.publicKey ?? b64url)(key.publicRaw),
      signature: "",
      signedAt: opts.signedAt ?? 1_000_000,
      nonce: "n1",
    },
  };
  const sign = async (payload: string) =>
    b64url(
      new Uint8Array(await crypto.subtle.sign({ name: "Ed25519" }, key.privateKey, new TextEncoder().encode(payload))),
    );
  fields.device.signature = await sign(signaturePayloads(fields, "t").v3);
  return { key, fields, sign };
}

describe("a node's key, in the forms OpenClaw sends it", () => {
  it("reads raw base64url, raw base64 with padding, and an SPKI PEM as the same 32 bytes", async () => {
    const { publicRaw } = await makeNodeKey();
    const spki = createPublicKey({ key: Buffer.concat([SPKI_PREFIX, publicRaw]), format: "der", type: "spki" });
    const pem = spki.export({ format: "pem", type: "spki" }).toString();
    for (const form of [b64url(publicRaw), Buffer.from(publicRaw).toString("base64"), pem, `  ${pem}\n`])
      expect([...(rawEd25519Key(form) ?? [])], form).toEqual([...publicRaw]);
    // SPKI DER without the PEM armour, as base64.
    expect([...(rawEd25519Key(b64url(Buffer.concat([SPKI_PREFIX, publicRaw]))) ?? [])]).toEqual([...publicRaw]);
  });

  it("refuses a key of another length, another algorithm's SPKI, or text that is not base64", async () => {
    const { publicRaw } = await makeNodeKey();
    expect(rawEd25519Key(b64url(publicRaw.slice(1)))).toBeNull();
    expect(rawEd25519Key(b64url(Buffer.concat([publicRaw, Buffer.from([0])])))).toBeNull();
    const x25519 = Buffer.from(SPKI_PREFIX);
    x25519[8] = 0x6e; // the OID of X25519 (1.3.101.110), not Ed25519 (1.3.101.112)
    expect(rawEd25519Key(b64url(Buffer.concat([x25519, publicRaw])))).toBeNull();
    const shifted = Buffer.from(SPKI_PREFIX);
    shifted[0] = 0x31;
    expect(rawEd25519Key(b64url(Buffer.concat([shifted, publicRaw])))).toBeNull();
    // The SPKI prefix followed by anything but exactly 32 bytes.
    expect(rawEd25519Key(b64url(Buffer.concat([SPKI_PREFIX, publicRaw, Buffer.from([0])])))).toBeNull();
    expect(rawEd25519Key(b64url(Buffer.concat([SPKI_PREFIX, publicRaw.slice(1)])))).toBeNull();
    expect(rawEd25519Key(`${b64url(publicRaw)}!`)).toBeNull();
    expect(rawEd25519Key(`!${b64url(publicRaw)}`)).toBeNull();
  });

  it("decodes base64url with or without padding, and nothing else", () => {
    expect([...(base64UrlToBytes("-_8") ?? [])]).toEqual([0xfb, 0xff]);
    expect([...(base64UrlToBytes("-_8=") ?? [])]).toEqual([0xfb, 0xff]);
    expect([...(base64UrlToBytes("AA==") ?? [])]).toEqual([0]);
    expect([...(base64UrlToBytes("AA") ?? [])]).toEqual([0]);
    expect([...(base64UrlToBytes("AAA") ?? [])]).toEqual([0, 0]);
    expect([...(base64UrlToBytes("AAA=") ?? [])]).toEqual([0, 0]);
    expect([...(base64UrlToBytes("") ?? [1])]).toEqual([]);
    // Plain base64's two symbols too: a PEM's body is plain base64.
    expect([...(base64UrlToBytes("+/8") ?? [])]).toEqual([0xfb, 0xff]);
    for (const bad of ["A", "AAAAA", "a.b", "a b", "AA===", "=AA", "A=A", "AA\n"])
      expect(base64UrlToBytes(bad), bad).toBeNull();
    expect(bytesToBase64Url(new Uint8Array([0xfb, 0xff]))).toBe("-_8");
    expect(bytesToBase64Url(new Uint8Array([0xfb, 0xef, 0xbe]))).toBe("----");
    expect(bytesToBase64Url(new Uint8Array([0x3f, 0xff, 0xff, 0]))).toBe("P___AA");
    expect(bytesToBase64Url(new Uint8Array([0, 0]))).toBe("AAA");
  });
});

describe("the signature over the challenge", () => {
  it("is accepted with the key's id and the key as base64url, whatever form the key came in", async () => {
    const { key, fields } = await node({ publicKey: (raw) => Buffer.from(raw).toString("base64") });
    expect(await verifyConnectSignature(fields, "t", "n1", 1_000_000)).toEqual({
      ok: true,
      deviceId: key.deviceId,
      publicKey: b64url(key.publicRaw),
    });
  });

  it("may be signed up to two minutes either side of the challenge, not more", async () => {
    expect(SIGNATURE_SKEW_MS).toBe(120_000);
    for (const skew of [SIGNATURE_SKEW_MS, -SIGNATURE_SKEW_MS]) {
      const { fields } = await node({ signedAt: 1_000_000 + skew });
      expect((await verifyConnectSignature(fields, "t", "n1", 1_000_000)).ok, String(skew)).toBe(true);
    }
    for (const skew of [SIGNATURE_SKEW_MS + 1, -SIGNATURE_SKEW_MS - 1]) {
      const { fields } = await node({ signedAt: 1_000_000 + skew });
      expect(await verifyConnectSignature(fields, "t", "n1", 1_000_000)).toEqual({
        ok: false,
        code: "DEVICE_AUTH_SIGNATURE_EXPIRED",
        reason: "device-signature-stale",
        message: "device signature expired",
      });
    }
  });

  it("names each refusal as OpenClaw's gateway does", async () => {
    const { fields } = await node();
    expect(await verifyConnectSignature(fields, "t", "n2", 1_000_000)).toEqual({
      ok: false,
      code: "DEVICE_AUTH_NONCE_MISMATCH",
      reason: "device-nonce-mismatch",
      message: "device nonce mismatch",
    });
    const badKey = { ...fields, device: { ...fields.device, publicKey: "AAAA" } };
    expect(await verifyConnectSignature(badKey, "t", "n1", 1_000_000)).toEqual({
      ok: false,
      code: "DEVICE_AUTH_PUBLIC_KEY_INVALID",
      reason: "device-public-key",
      message: "device public key invalid",
    });
    const otherId = { ...fields, device: { ...fields.device, id: "0".repeat(64) } };
    expect(await verifyConnectSignature(otherId, "t", "n1", 1_000_000)).toEqual({
      ok: false,
      code: "DEVICE_AUTH_DEVICE_ID_MISMATCH",
      reason: "device-id-mismatch",
      message: "device identity mismatch",
    });
    const invalid = {
      ok: false,
      code: "DEVICE_AUTH_SIGNATURE_INVALID",
      reason: "device-signature",
      message: "device signature invalid",
    };
    const short = { ...fields, device: { ...fields.device, signature: fields.device.signature.slice(0, -4) } };
    expect(await verifyConnectSignature(short, "t", "n1", 1_000_000)).toEqual(invalid);
    const notB64 = { ...fields, device: { ...fields.device, signature: `${fields.device.signature}!` } };
    expect(await verifyConnectSignature(notB64, "t", "n1", 1_000_000)).toEqual(invalid);
    expect(await verifyConnectSignature(fields, "other", "n1", 1_000_000)).toEqual(invalid);
  });

  it("binds every field it signs: a change to any one of them is refused", async () => {
    const { fields } = await node();
    const changed: Fields[] = [
      { ...fields, client: { ...fields.client, id: "other" } },
      { ...fields, client: { ...fields.client, mode: "ui" } },
      { ...fields, role: "operator" },
      { ...fields, scopes: ["x", "y"] },
      { ...fields, client: { ...fields.client, platform: "darwin" } },
      { ...fields, client: { ...fields.client, deviceFamily: "Mac" } },
    ];
    for (const f of changed) expect((await verifyConnectSignature(f, "t", "n1", 1_000_000)).ok).toBe(false);
  });

  it("lower-cases only ASCII letters of the platform and family, and trims them, as OpenClaw does", async () => {
    const p = signaturePayloads(
      {
        client: { id: "c", mode: "node", platform: " ÄBC-Z ", deviceFamily: undefined },
        role: "node",
        scopes: [],
        device: { id: "d", publicKey: "k", signature: "s", signedAt: 1, nonce: "n" },
      },
      "",
    );
    expect(p.v3).toBe("v3|d|c|node|node||1||n|Äbc-z|");
  });

  it("accepts a v2 signature, which lacks the platform and family", async () => {
    const { fields, sign } = await node();
    const v2 = { ...fields, device: { ...fields.device, signature: await sign(signaturePayloads(fields, "t").v2) } };
    expect((await verifyConnectSignature(v2, "t", "n1", 1_000_000)).ok).toBe(true);
  });
});

// The DER prefix of an Ed25519 SubjectPublicKeyInfo (RFC 8410): SEQUENCE, AlgorithmIdentifier 1.3.101.112, BIT STRING.
const SPKI_PREFIX = Buffer.from([0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x03, 0x21, 0x00]);
