import type { PairingClaim } from "@edgeloop/protocol/pairing";

/**
 * Where a node with only its device key asks for approval: the deployment's pairing requests
 * (durable-objects/deployment/pairing-store.ts), the same ones `edgeloop devices approve <code>` and the dashboard
 * decide for edgeloop's own agent. The hub opens a request (kind `openclaw`, with the node's
 * public key) and keeps its claim secret; each time the node connects again, the hub claims:
 * still pending, denied, or approved (then the deployment object has minted this device's token).
 * A type of its own so node-admission.ts, which takes a desk, is type-checked and tested in Node.
 */
export type PairingDesk = {
  open(req: { agent_id: string; label: string | null; public_key: string }): Promise<Opened | null>;
  claim(claimSecret: string): Promise<{ ok: true; claim: PairingClaim } | { ok: false; reason: string }>;
};

export type Opened = { code: string; claim_secret: string; expires_at: number };
