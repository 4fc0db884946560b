import type { PairingRequestBody, PairingView } from "@edgeloop/protocol/pairing";
import type { PairingSettings } from "./pairing-settings.js";
import type { ClaimAnswer, DecideOutcome, Decision, OpenOutcome } from "./pairing-store.js";

/**
 * What the pairing object offers its callers (the `/v1/pairing` routes; a channel or OpenClaw
 * onboarding may decide codes too). Declared apart from the class, as the hub's and the
 * conversation's are, so addresses.ts can type its stub without importing the object it calls.
 */
export interface PairingRpc {
  open(req: PairingRequestBody, settings: PairingSettings): Promise<OpenOutcome>;
  pending(): Promise<PairingView[]>;
  get(code: string): Promise<PairingView | null>;
  /** `decision.by` is recorded as who approved: "admin", "admin (dashboard)", a channel's approver… */
  approve(code: string, decision: Decision): Promise<DecideOutcome>;
  deny(code: string, by: string): Promise<DecideOutcome>;
  /** The device collects with its claim secret: pending, denied, or its own token (once). */
  claim(claimSecret: string): Promise<ClaimAnswer>;
}
