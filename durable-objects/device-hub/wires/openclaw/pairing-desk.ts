import type { PairingClaim } from "@edgeloop/protocol/pairing";
import { pairingOf } from "../../../addresses.js";
import type { DurableObjectBindings } from "../../../bindings.js";
import { type PairingVars, pairingSettings } from "../../../pairing/pairing-settings.js";

/**
 * Where a node with only its device key asks for approval: the deployment's pairing requests
 * (durable-objects/pairing/), the same ones `edgeloop devices approve <code>` and the dashboard
 * decide for edgeloop's own agent. The hub opens a request (kind `openclaw`, with the node's
 * public key) and keeps its claim secret; each time the node connects again, the hub claims:
 * still pending, denied, or approved (then the pairing object has minted this device's token).
 */
export type PairingDesk = {
  open(req: { agent_id: string; label: string | null; public_key: string }): Promise<Opened | null>;
  claim(claimSecret: string): Promise<{ ok: true; claim: PairingClaim } | { ok: false; reason: string }>;
};

export type Opened = { code: string; claim_secret: string; expires_at: number };

export function pairingDesk(env: Pick<DurableObjectBindings, "PAIRING"> & PairingVars): PairingDesk {
  return {
    async open(req) {
      const settings = pairingSettings(env);
      if (!settings.ok) return null;
      const outcome = await pairingOf(env).open(
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
    claim: (claimSecret) => pairingOf(env).claim(claimSecret),
  };
}
