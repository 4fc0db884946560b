import { createHash } from "node:crypto";
import type { PairingClaim } from "@edgeloop/protocol/pairing";
import { afterEach, describe, expect, it, vi } from "vitest";
import { DeviceTokens } from "../../../durable-objects/device-hub/storage/device-tokens.js";
import { signaturePayloads } from "../../../durable-objects/device-hub/wires/openclaw/device-signature.js";
import type { ConnectParams } from "../../../durable-objects/device-hub/wires/openclaw/gateway-frames.js";
import { admit } from "../../../durable-objects/device-hub/wires/openclaw/node-admission.js";
import { NodeCredentials } from "../../../durable-objects/device-hub/wires/openclaw/node-credentials.js";
import type { PairingDesk } from "../../../durable-objects/device-hub/wires/openclaw/pairing-desk-type.js";
import { nodeSqlStorage } from "../../helpers/node-sql-storage.js";
import { makeNodeKey, type NodeKey } from "../../helpers/openclaw-node.js";

/**
 * Who may connect as an agent id's OpenClaw node, in Node (workerd and end to end: test/worker/openclaw-node*.test.ts,
 * test/e2e/openclaw-node*.test.ts): the hub's credentials and tokens over SQLite, real Ed25519 signatures, and the
 * deployment's pairing desk as a table of its answers (the deployment object does not run in Node).
 */
const AGENT = "pi";
const NOW = 5_000_000;
const state = { nonce: "n-1", challenge_ts: NOW };
const b64url = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64url");
const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

type Auth = NonNullable<ConnectParams["auth"]>;

async function connect(
  key: NodeKey,
  auth: Auth | undefined,
  over: Partial<ConnectParams> = {},
): Promise<ConnectParams> {
  const p: ConnectParams = {
    minProtocol: 4,
    maxProtocol: 4,
    client: { id: "node-host", mode: "node", platform: "Linux", displayName: "kitchen" },
    role: "node",
    scopes: [],
    caps: [],
    commands: [],
    ...(auth ? { auth } : {}),
    device: { id: key.deviceId, publicKey: b64url(key.publicRaw), signature: "", signedAt: NOW, nonce: state.nonce },
    ...over,
  };
  const token = auth?.token ?? auth?.deviceToken ?? auth?.bootstrapToken ?? "";
  const payload = new TextEncoder().encode(signaturePayloads({ ...p, device: p.device! }, token).v3);
  p.device!.signature = b64url(new Uint8Array(await crypto.subtle.sign({ name: "Ed25519" }, key.privateKey, payload)));
  return p;
}

/** The hub's log lines (runtime/log.ts: one JSON object per line on console.info), without their time. */
const logged = () => {
  const info = vi.spyOn(console, "info").mockImplementation(() => {});
  return () =>
    info.mock.calls.map(([line]) => {
      const { ts: _, ...rest } = JSON.parse(String(line)) as Record<string, unknown>;
      return rest;
    });
};
afterEach(() => vi.restoreAllMocks());

type ClaimAnswer = Awaited<ReturnType<PairingDesk["claim"]>>;

function hub(opts: { full?: boolean } = {}) {
  const opened: Parameters<PairingDesk["open"]>[0][] = [];
  const answers = new Map<string, ClaimAnswer>();
  const pairing: PairingDesk = {
    async open(req) {
      opened.push(req);
      if (opts.full) return null;
      return { code: `CODE-${opened.length}`, claim_secret: `secret-${opened.length}`, expires_at: NOW + 600_000 };
    },
    claim: async (secret) => answers.get(secret) ?? { ok: false, reason: "unknown" },
  };
  const credentials = new NodeCredentials(nodeSqlStorage());
  const tokens = new DeviceTokens(nodeSqlStorage());
  const answer = (secret: string, claim: PairingClaim) => answers.set(secret, { ok: true, claim });
  return { credentials, tokens, pairing, agentId: AGENT, opened, answer };
}

const refused = (code: string, message: string, details: Record<string, unknown> = {}) => ({
  ok: false,
  error: { code: "UNAUTHORIZED", message, details: { code, ...details } },
});
const pairingRequired = (code: string) =>
  refused("PAIRING_REQUIRED", `pairing required: an admin approves it with \`edgeloop devices approve ${code}\``, {
    reason: "not-paired",
    requestId: code,
    recommendedNextStep: "wait_then_retry",
    retryable: true,
    pauseReconnect: false,
  });

describe("before any credential", () => {
  it("refuses a protocol it does not speak as an invalid request, naming its own", async () => {
    const key = await makeNodeKey();
    const p = await connect(key, undefined, { minProtocol: 5, maxProtocol: 6 });
    expect(await admit(p, state, hub(), NOW)).toEqual({
      ok: false,
      error: {
        code: "INVALID_REQUEST",
        message: "protocol mismatch: this gateway speaks 4",
        details: { code: "PROTOCOL_MISMATCH", expectedProtocol: 4 },
      },
    });
  });

  it("refuses a role other than node, and a connect without a device identity", async () => {
    const key = await makeNodeKey();
    const operator = await connect(key, undefined, { role: "operator" });
    expect(await admit(operator, state, hub(), NOW)).toEqual(
      refused("AUTH_UNAUTHORIZED", "edgeloop serves OpenClaw nodes only (role 'node'); use edgeloop's own API"),
    );
    const { device: _, ...anonymous } = await connect(key, undefined);
    expect(await admit(anonymous, state, hub(), NOW)).toEqual(
      refused("DEVICE_IDENTITY_REQUIRED", "device identity required"),
    );
  });

  it("refuses a signature over another token or another challenge, with the signature check's reason", async () => {
    const key = await makeNodeKey();
    const d = hub();
    const p = await connect(key, { token: "one" });
    p.auth = { token: "another" };
    expect(await admit(p, state, d, NOW)).toEqual(
      refused("DEVICE_AUTH_SIGNATURE_INVALID", "device signature invalid", { reason: "device-signature" }),
    );
    expect(await admit(await connect(key, undefined), { ...state, nonce: "n-2" }, d, NOW)).toMatchObject({
      error: { details: { code: "DEVICE_AUTH_NONCE_MISMATCH", reason: "device-nonce-mismatch" } },
    });
    expect(d.opened).toEqual([]);
  });

  it("refuses a revoked key before anything else, naming how an admin clears it", async () => {
    const key = await makeNodeKey();
    const d = hub();
    const issued = await d.tokens.issue(NOW);
    d.credentials.revoke(key.deviceId, NOW, "its token tok_1 was revoked");
    expect(await admit(await connect(key, { token: issued.token }), state, d, NOW)).toEqual(
      refused(
        "AUTH_UNAUTHORIZED",
        "this device key was revoked (its token tok_1 was revoked): an admin clears it with `edgeloop devices clear pi`",
        { reason: "device-revoked" },
      ),
    );
    expect(d.opened).toEqual([]);
  });
});

describe("a setup code", () => {
  it("pins the key and issues a device token, once", async () => {
    const key = await makeNodeKey();
    const d = hub();
    const { secret } = await d.credentials.mintSetup(NOW, 600_000);
    const lines = logged();
    const first = await admit(await connect(key, { bootstrapToken: secret }), state, d, NOW);
    expect(first).toMatchObject({ ok: true, protocol: 4, deviceId: key.deviceId });
    if (!first.ok) throw new Error("refused");
    expect(lines()).toEqual([
      {
        level: "info",
        msg: "openclaw node paired",
        agent_id: AGENT,
        device_id: key.deviceId,
        token_id: first.tokenId,
        by: "setup_code",
      },
    ]);
    expect(d.tokens.match(sha256(first.issuedToken!), NOW)).toBe(first.tokenId);
    expect(d.credentials.pinned()).toMatchObject({ device_id: key.deviceId, paired_at: NOW, paired_by: "setup_code" });
    expect(await admit(await connect(key, { bootstrapToken: secret }), state, d, NOW)).toEqual(
      refused("AUTH_BOOTSTRAP_TOKEN_INVALID", "the setup code is unknown, used or expired: mint a new one"),
    );
  });

  it("is not used when a token comes with it: the token is judged", async () => {
    const key = await makeNodeKey();
    for (const other of ["token", "deviceToken"] as const) {
      const d = hub();
      const { secret } = await d.credentials.mintSetup(NOW, 600_000);
      const issued = await d.tokens.issue(NOW);
      const got = await admit(await connect(key, { bootstrapToken: secret, [other]: issued.token }), state, d, NOW);
      expect(got).toEqual({ ok: true, protocol: 4, deviceId: key.deviceId, tokenId: issued.token_id });
      expect(await d.credentials.consumeSetup(secret, NOW)).toBe(true);
    }
  });
});

describe("a device token edgeloop issued", () => {
  it("lets the node in as token or deviceToken, pinning its key when none is pinned", async () => {
    const key = await makeNodeKey();
    for (const field of ["token", "deviceToken"] as const) {
      const d = hub();
      const issued = await d.tokens.issue(NOW);
      const got = await admit(await connect(key, { [field]: issued.token }), state, d, NOW);
      expect(got).toEqual({ ok: true, protocol: 4, deviceId: key.deviceId, tokenId: issued.token_id });
      expect(d.credentials.pinned()).toMatchObject({ device_id: key.deviceId, paired_by: `token:${issued.token_id}` });
    }
  });

  it("tries the device token when the shared token is not one edgeloop issued", async () => {
    const key = await makeNodeKey();
    const d = hub();
    const issued = await d.tokens.issue(NOW);
    const got = await admit(await connect(key, { token: "not-ours", deviceToken: issued.token }), state, d, NOW);
    expect(got).toMatchObject({ ok: true, tokenId: issued.token_id });
  });

  it("keeps the pinned key, and sends another key with the same token to approval", async () => {
    const key = await makeNodeKey();
    const other = await makeNodeKey();
    const d = hub();
    const issued = await d.tokens.issue(NOW);
    d.credentials.pin(key.deviceId, b64url(key.publicRaw), 1, "setup_code");
    expect(await admit(await connect(key, { token: issued.token }), state, d, NOW)).toMatchObject({ ok: true });
    expect(d.credentials.pinned()).toMatchObject({ device_id: key.deviceId, paired_at: 1, paired_by: "setup_code" });
    expect(await admit(await connect(other, { token: issued.token }), state, d, NOW)).toEqual(
      pairingRequired("CODE-1"),
    );
    expect(d.credentials.pinned()?.device_id).toBe(key.deviceId);
  });

  it("negotiates protocol 3 with an older node", async () => {
    const key = await makeNodeKey();
    const d = hub();
    const issued = await d.tokens.issue(NOW);
    const p = await connect(key, { token: issued.token }, { minProtocol: 3, maxProtocol: 3 });
    expect(await admit(p, state, d, NOW)).toMatchObject({ ok: true, protocol: 3 });
  });
});

describe("a key with no credential", () => {
  it("opens one pairing request and waits on it while it is pending", async () => {
    const key = await makeNodeKey();
    const d = hub();
    const lines = logged();
    expect(await admit(await connect(key, { token: "not-ours" }), state, d, NOW)).toEqual(pairingRequired("CODE-1"));
    expect(lines()).toEqual([
      {
        level: "info",
        msg: "openclaw node waits for approval",
        agent_id: AGENT,
        device_id: key.deviceId,
        code: "CODE-1",
      },
    ]);
    expect(d.opened).toEqual([
      {
        agent_id: AGENT,
        label: `OpenClaw node kitchen (Linux, key ${key.deviceId.slice(0, 12)})`,
        public_key: b64url(key.publicRaw),
      },
    ]);
    expect(d.credentials.claimFor(key.deviceId, NOW)).toEqual({
      device_id: key.deviceId,
      code: "CODE-1",
      claim_secret: "secret-1",
      expires_at: NOW + 600_000,
    });
    d.answer("secret-1", { status: "pending", expires_at: NOW + 600_000, poll_after_ms: 1000 });
    expect(await admit(await connect(key, undefined), state, d, NOW)).toEqual(pairingRequired("CODE-1"));
    expect(d.opened).toHaveLength(1);
  });

  it("labels a node that names neither itself nor its platform", async () => {
    const key = await makeNodeKey();
    const d = hub();
    await admit(await connect(key, undefined, { client: { id: "x", mode: "node" } }), state, d, NOW);
    expect(d.opened[0]?.label).toBe(`OpenClaw node  (?, key ${key.deviceId.slice(0, 12)})`);
  });

  it("once approved, comes in with the token the deployment minted, pinned by pairing", async () => {
    const key = await makeNodeKey();
    const d = hub();
    await admit(await connect(key, undefined), state, d, NOW);
    d.answer("secret-1", { status: "approved", agent_id: AGENT, token_id: "tok_9", token: "edl_minted" });
    const lines = logged();
    expect(await admit(await connect(key, undefined), state, d, NOW + 1)).toEqual({
      ok: true,
      protocol: 4,
      deviceId: key.deviceId,
      tokenId: "tok_9",
      issuedToken: "edl_minted",
    });
    expect(d.credentials.pinned()).toMatchObject({ device_id: key.deviceId, paired_at: NOW + 1, paired_by: "pairing" });
    expect(lines()).toEqual([
      { level: "info", msg: "openclaw node approved", agent_id: AGENT, device_id: key.deviceId, code: "CODE-1" },
    ]);
    expect(d.credentials.claimFor(key.deviceId, NOW + 1)).toBeNull();
  });

  it("approved under another agent id, is told where to connect, and its request is gone", async () => {
    const key = await makeNodeKey();
    const d = hub();
    await admit(await connect(key, undefined), state, d, NOW);
    d.answer("secret-1", { status: "approved", agent_id: "desk", token_id: "tok_9", token: "edl_minted" });
    expect(await admit(await connect(key, undefined), state, d, NOW)).toEqual(
      refused("AUTH_UNAUTHORIZED", "approved as 'desk', not 'pi': connect there"),
    );
    expect(d.credentials.pinned()).toBeNull();
    expect(d.credentials.claimFor(key.deviceId, NOW)).toBeNull();
  });

  it("denied, is revoked: refused from then on with no new request", async () => {
    const key = await makeNodeKey();
    const d = hub();
    await admit(await connect(key, undefined), state, d, NOW);
    d.answer("secret-1", { status: "denied" });
    expect(await admit(await connect(key, undefined), state, d, NOW)).toEqual(
      refused("AUTH_UNAUTHORIZED", "pairing request CODE-1 was denied", { reason: "device-revoked" }),
    );
    expect(d.credentials.revoked(key.deviceId)).toMatchObject({ why: "pairing request CODE-1 was denied" });
    expect(await admit(await connect(key, undefined), state, d, NOW)).toMatchObject({
      error: { details: { reason: "device-revoked" } },
    });
    expect(d.opened).toHaveLength(1);
  });

  it("whose request expired or is unknown to the deployment, opens a new one", async () => {
    const key = await makeNodeKey();
    const d = hub();
    await admit(await connect(key, undefined), state, d, NOW);
    expect(await admit(await connect(key, undefined), state, d, NOW)).toEqual(pairingRequired("CODE-2"));
    expect(await admit(await connect(key, undefined), state, d, NOW + 600_000)).toEqual(pairingRequired("CODE-3"));
  });

  it("is refused when eight requests already wait, or when the desk takes none", async () => {
    const d = hub();
    for (let i = 0; i < 7; i++)
      d.credentials.saveClaim({ device_id: `k${i}`, code: `C${i}`, claim_secret: `s${i}`, expires_at: NOW + 1000 });
    expect(await admit(await connect(await makeNodeKey(), undefined), state, d, NOW)).toEqual(
      pairingRequired("CODE-1"),
    );
    expect(await admit(await connect(await makeNodeKey(), undefined), state, d, NOW)).toEqual(
      refused("AUTH_RATE_LIMITED", "too many devices are waiting for approval on this agent id"),
    );
    const full = hub({ full: true });
    expect(await admit(await connect(await makeNodeKey(), undefined), state, full, NOW)).toEqual(
      refused("AUTH_RATE_LIMITED", "pairing is full or not configured: try again later"),
    );
  });
});
