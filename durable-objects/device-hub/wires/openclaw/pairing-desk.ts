import { deploymentOf } from "../../../addresses.js";
import type { DurableObjectBindings } from "../../../bindings.js";
import { type PairingVars, pairingSettings } from "../../../deployment/pairing-settings.js";
import type { PairingDesk } from "./pairing-desk-type.js";

/** The pairing desk (pairing-desk-type.ts) over the deployment object. */
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
