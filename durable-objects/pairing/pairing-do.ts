import { DurableObject } from "cloudflare:workers";
import type { PairingRequestBody, PairingView } from "@edgeloop/protocol/pairing";
import { log } from "../../runtime/log.js";
import { hubFor } from "../addresses.js";
import type { DurableObjectBindings } from "../bindings.js";
import type { PairingRpc } from "./pairing-rpc.js";
import type { PairingSettings } from "./pairing-settings.js";
import {
  type ClaimAnswer,
  type ClaimOutcome,
  type DecideOutcome,
  type Decision,
  type OpenOutcome,
  PairingStore,
} from "./pairing-store.js";

type PairingEnv = Pick<DurableObjectBindings, "DEVICE_HUB">;

/**
 * The deployment's pairing requests (one object, `"global"`; pairing-store.ts keeps them). Pairing
 * is control plane: a device that pairs calls here a few times, an admin lists and decides, and no
 * message, command or result ever passes through, so one object for the deployment never sits on
 * a hot path (docs/scale.md). The device's token is minted by its own hub, as the admin API's
 * `POST /v1/devices/:agent_id/tokens` does, when the device collects its approval
 * (docs/architecture.md#pairing-mints-only-for-the-claim-secret).
 */
export class PairingDO extends DurableObject<PairingEnv> implements PairingRpc {
  private readonly store: PairingStore;

  constructor(ctx: DurableObjectState, env: PairingEnv) {
    super(ctx, env);
    this.store = new PairingStore(ctx.storage.sql);
  }

  /** `settings` as the worker parsed them (pairing-settings.ts), so every request is judged by the deployment's vars. */
  async open(req: PairingRequestBody, settings: PairingSettings): Promise<OpenOutcome> {
    const outcome = await this.store.open(req, Date.now(), settings.codeTtlMs, settings.maxPending);
    if (outcome.ok)
      log("info", "pairing requested", { code: outcome.opened.code, agent_id: req.agent_id, kind: req.kind });
    else log("warn", "pairing refused: too many waiting", { agent_id: req.agent_id, kind: req.kind });
    return outcome;
  }

  async pending(): Promise<PairingView[]> {
    return this.store.pending(Date.now());
  }

  async get(code: string): Promise<PairingView | null> {
    return this.store.get(code);
  }

  async approve(code: string, decision: Decision): Promise<DecideOutcome> {
    const outcome = this.store.approve(code, decision, Date.now());
    if (outcome.ok)
      log("info", "pairing approved", { code, agent_id: outcome.request.agent_id, approved_by: decision.by });
    return outcome;
  }

  async deny(code: string, by: string): Promise<DecideOutcome> {
    const outcome = this.store.deny(code, by, Date.now());
    if (outcome.ok) log("info", "pairing denied", { code, agent_id: outcome.request.agent_id, denied_by: by });
    return outcome;
  }

  /** The device collects: still pending, denied, or its own token (once). */
  async claim(claimSecret: string): Promise<ClaimAnswer> {
    const found: ClaimOutcome = await this.store.claim(claimSecret, Date.now());
    if (found.status === "unknown" || found.status === "expired" || found.status === "claimed")
      return { ok: false, reason: found.status };
    if (found.status !== "approved") return { ok: true, claim: found };
    try {
      const issued = await hubFor(this.env, found.agent_id).issueToken(found.agent_id);
      this.store.recordToken(found.code, issued.token_id);
      log("info", "pairing collected", { code: found.code, agent_id: found.agent_id, token_id: issued.token_id });
      return {
        ok: true,
        claim: { status: "approved", agent_id: found.agent_id, token_id: issued.token_id, token: issued.token },
      };
    } catch (e) {
      this.store.reopenClaim(found.code);
      throw e;
    }
  }
}
