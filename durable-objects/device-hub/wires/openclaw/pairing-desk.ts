import type { PairingClaim } from "@edgeloop/protocol/pairing";
import { deploymentOf } from "../../../addresses.js";
import type { DurableObjectBindings } from "../../../bindings.js";
import { type PairingVars, pairingSettings } from "../../../deployment/pairing-settings.js";

/**
 * Where a node with only its device key asks for approval: the deployment's pairing requests
 * (durable-objects/deployment/pairing-store.ts), the same ones `edgeloop devices approve <code>` and the dashboard
 * decide for edgeloop's own agent. The hub opens a request (kind `openclaw`, with the node's
 * public key) and keeps its claim secret; each time the node connects again, the hub claims:
 * still pending, denied, or approved (then the deployment object has minted this device's token).
 */
export type PairingDesk = {
  open(req: { agent_id: string; label: string | null; public_key: string }): Promise<Opened | null>;
  claim(claimSecret: string): Promise<{ ok: true; claim: PairingClaim } | { ok: false; reason: string }>;
};

export type Opened = { code: string; claim_secret: string; expires_at: number };

export function pairingDesk(env: Pick<DurableObjectBindings, "DEPLOYMENT"> & Partial<PairingVars>): PairingDesk {
  return {
    async open(req) {
      const settings = pairingSettings(env);
      if (!settings.ok) return null;
      const outcome = await deploymentOf(env).openPairing(
        {
          agent_id: req.agent_id,
          kind: "openclaw",
          public_key: req.public_key,
          ...(req.label ? { label: req.label } : {}),
        },
        settings.value,
      );
      return outcome.ok ? outcome.opened : null;
    },
    claim: (claimSecret) => deploymentOf(env).claimPairing(claimSecret),
  };
}
