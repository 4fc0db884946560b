import type { Result } from "@edgeloop/protocol/result";
import { z } from "zod";
import { intVar, oncePerEnv, parseVars, type VarsOf } from "../../runtime/vars.js";

export const PairingVarsSchema = z.object({
  PAIRING_CODE_TTL_SECONDS: intVar(30, 86_400)
    .default(600)
    .describe("How long a pairing code can be approved and its token collected (docs/security.md, Pairing)"),
  PAIRING_MAX_PENDING: intVar(1, 1000)
    .default(50)
    .describe("Pairing requests waiting at once; more are refused (429) until some are decided or expire"),
});

/** The vars the pairing store reads. */
export type PairingVars = VarsOf<typeof PairingVarsSchema.shape>;

export type PairingSettings = { codeTtlMs: number; maxPending: number };

/** Parsed once per isolate; a bad value refuses new pairing requests naming it. */
export const pairingSettings = oncePerEnv((env: PairingVars): Result<PairingSettings> => {
  const vars = parseVars(PairingVarsSchema, env);
  if (!vars.ok) return vars;
  return {
    ok: true,
    value: { codeTtlMs: vars.value.PAIRING_CODE_TTL_SECONDS * 1000, maxPending: vars.value.PAIRING_MAX_PENDING },
  };
});
