import { sha256Hex } from "../../../../runtime/digest.js";
import { log } from "../../../../runtime/log.js";
import type { DeviceTokens } from "../../storage/device-tokens.js";
import { verifyConnectSignature } from "./device-signature.js";
import { type ConnectParams, GATEWAY_PROTOCOL, type GatewayError, negotiateProtocol } from "./gateway-frames.js";
import type { NodeCredentials } from "./node-credentials.js";
import type { NodeSocketState } from "./node-socket-state.js";
import type { PairingDesk } from "./pairing-desk-type.js";

/**
 * Who may connect as this agent id's OpenClaw node (docs/openclaw-nodes.md#set-up), decided
 * from the `connect` frame alone (the upgrade carries no credentials):
 * 1. the node signed this socket's challenge with the key it names (always required);
 * 2. then one of: a setup secret an admin minted (used once; pins the key, issues a device token);
 *    a device token edgeloop issued (admin API or an earlier pairing) with the pinned key, or
 *    with no key pinned yet; an admin's approval of this key's pairing request (the token the
 *    deployment object minted for it);
 * 3. otherwise the key waits for approval: PAIRING_REQUIRED with the request's code, and the node
 *    keeps retrying.
 * A key an admin revoked (a token it signed in with) or denied (its pairing request) is refused
 * before any of that, with no new pairing request, until an admin clears it: a node retries
 * forever, and a request after every deny is one an admin may approve by habit.
 * A token edgeloop did not issue is treated as no token: never stored, never logged.
 */

export type Admission =
  | { ok: true; protocol: number; deviceId: string; tokenId: string; issuedToken?: string }
  | { ok: false; error: GatewayError };

type Deps = { credentials: NodeCredentials; tokens: DeviceTokens; pairing: PairingDesk; agentId: string };

const refuse = (code: string, message: string, details: Record<string, unknown> = {}): Admission => ({
  ok: false,
  error: {
    code: code === "PROTOCOL_MISMATCH" ? "INVALID_REQUEST" : "UNAUTHORIZED",
    message,
    details: { code, ...details },
  },
});

export async function admit(p: ConnectParams, state: NodeSocketState, d: Deps, now: number): Promise<Admission> {
  const protocol = negotiateProtocol(p);
  if (protocol === null)
    return refuse("PROTOCOL_MISMATCH", `protocol mismatch: this gateway speaks ${GATEWAY_PROTOCOL}`, {
      expectedProtocol: GATEWAY_PROTOCOL,
    });
  if (p.role !== "node")
    return refuse("AUTH_UNAUTHORIZED", "edgeloop serves OpenClaw nodes only (role 'node'); use edgeloop's own API");
  if (!p.device) return refuse("DEVICE_IDENTITY_REQUIRED", "device identity required");
  const auth = p.auth ?? {};
  // The token the node signed with: its shared or device token, else the bootstrap token.
  const signed = auth.token ?? auth.deviceToken ?? auth.bootstrapToken ?? "";
  const sig = await verifyConnectSignature({ ...p, device: p.device }, signed, state.nonce, state.challenge_ts);
  if (!sig.ok) return refuse(sig.code, sig.message, { reason: sig.reason });
  const revoked = d.credentials.revoked(sig.deviceId);
  if (revoked)
    // AUTH_UNAUTHORIZED: the node keeps retrying (it pauses on the codes OpenClaw deems final), so it
    // comes back as a pairing request by itself once an admin clears its key.
    return refuse(
      "AUTH_UNAUTHORIZED",
      `this device key was revoked (${revoked.why}): an admin clears it with \`edgeloop devices clear ${d.agentId}\``,
      { reason: "device-revoked" },
    );
  const pin = d.credentials.pinned();
  const issue = async (pairedBy: string): Promise<Admission> => {
    d.credentials.pin(sig.deviceId, sig.publicKey, now, pairedBy);
    const issued = await d.tokens.issue(now);
    log("info", "openclaw node paired", {
      agent_id: d.agentId,
      device_id: sig.deviceId,
      token_id: issued.token_id,
      by: pairedBy,
    });
    return { ok: true, protocol, deviceId: sig.deviceId, tokenId: issued.token_id, issuedToken: issued.token };
  };

  if (auth.bootstrapToken && !auth.token && !auth.deviceToken) {
    if (await d.credentials.consumeSetup(auth.bootstrapToken, now)) return issue("setup_code");
    return refuse("AUTH_BOOTSTRAP_TOKEN_INVALID", "the setup code is unknown, used or expired: mint a new one");
  }
  for (const token of [auth.token, auth.deviceToken]) {
    if (!token) continue;
    const tokenId = d.tokens.match(await sha256Hex(token), now);
    if (!tokenId) continue;
    if (pin && pin.device_id !== sig.deviceId) break; // another key: it must be approved
    if (!pin) d.credentials.pin(sig.deviceId, sig.publicKey, now, `token:${tokenId}`);
    return { ok: true, protocol, deviceId: sig.deviceId, tokenId };
  }
  return awaitApproval(p, sig, d, now, (tokenId, token) => {
    d.credentials.pin(sig.deviceId, sig.publicKey, now, "pairing");
    return { ok: true, protocol, deviceId: sig.deviceId, tokenId, issuedToken: token };
  });
}

/** Requests one hub keeps open at most: a node retries with one key, so more is someone knocking. */
const MAX_CLAIMS = 8;

const pairingRequired = (code: string): Admission =>
  refuse("PAIRING_REQUIRED", `pairing required: an admin approves it with \`edgeloop devices approve ${code}\``, {
    reason: "not-paired",
    requestId: code,
    recommendedNextStep: "wait_then_retry",
    retryable: true,
    pauseReconnect: false,
  });

/**
 * A device key with no credential: its pairing request (pairing-desk.ts) is opened at the first
 * connect and claimed at each later one, until an admin decides it or it expires.
 */
async function awaitApproval(
  p: ConnectParams,
  sig: { deviceId: string; publicKey: string },
  d: Deps,
  now: number,
  admitWith: (tokenId: string, token: string) => Admission,
): Promise<Admission> {
  const waiting = d.credentials.claimFor(sig.deviceId, now);
  if (waiting) {
    const answer = await d.pairing.claim(waiting.claim_secret);
    if (answer.ok && answer.claim.status === "pending") return pairingRequired(waiting.code);
    d.credentials.dropClaim(sig.deviceId);
    if (answer.ok && answer.claim.status === "approved") {
      // Approved under another id, the token is that device's: this node is not let in here.
      if (answer.claim.agent_id !== d.agentId)
        return refuse("AUTH_UNAUTHORIZED", `approved as '${answer.claim.agent_id}', not '${d.agentId}': connect there`);
      log("info", "openclaw node approved", { agent_id: d.agentId, device_id: sig.deviceId, code: waiting.code });
      return admitWith(answer.claim.token_id, answer.claim.token);
    }
    if (answer.ok && answer.claim.status === "denied") {
      d.credentials.revoke(sig.deviceId, now, `pairing request ${waiting.code} was denied`);
      return refuse("AUTH_UNAUTHORIZED", `pairing request ${waiting.code} was denied`, { reason: "device-revoked" });
    }
    // Expired or unknown: a new request below.
  }
  if (d.credentials.claimCount() >= MAX_CLAIMS)
    return refuse("AUTH_RATE_LIMITED", "too many devices are waiting for approval on this agent id");
  const opened = await d.pairing.open({
    agent_id: d.agentId,
    label: `OpenClaw node ${p.client.displayName ?? ""} (${p.client.platform ?? "?"}, key ${sig.deviceId.slice(0, 12)})`,
    public_key: sig.publicKey,
  });
  if (!opened) return refuse("AUTH_RATE_LIMITED", "pairing is full or not configured: try again later");
  d.credentials.saveClaim({ device_id: sig.deviceId, ...opened });
  log("info", "openclaw node waits for approval", { agent_id: d.agentId, device_id: sig.deviceId, code: opened.code });
  return pairingRequired(opened.code);
}
