import { PairingApproveBody, PairingCode, PairingRequestBody } from "@edgeloop/protocol/pairing";
import { type Context, Hono } from "hono";
import { deploymentOf, hubFor } from "../../durable-objects/addresses.js";
import { pairingSettings } from "../../durable-objects/deployment/pairing-settings.js";
import type { DecideOutcome } from "../../durable-objects/deployment/pairing-store.js";
import { problemResponse } from "../../runtime/problem.js";
import type { AppEnv } from "../env.js";
import { bearerToken } from "../middleware/access-verdict.js";
import { authorizeAdmin } from "../middleware/authorize.js";
import { countRejections } from "../middleware/count-rejections.js";
import { parseJsonBody, readJsonBody, readRawBody } from "../read-body.js";

/**
 * `/v1/pairing`: a device joins without a copied secret (docs/security.md, "Pairing").
 *
 *   POST /v1/pairing {agent_id, kind, label?, public_key?} → 201 {code, claim_secret, expires_at}   (anyone)
 *   POST /v1/pairing/claim  (Bearer claim_secret)           → {status: pending | denied | approved+token}
 *   GET  /v1/pairing                                        → {pending}                             (admin)
 *   POST /v1/pairing/:code/approve {agent_id?}              → the request, approved                 (admin)
 *   POST /v1/pairing/:code/deny                             → the request, denied                   (admin)
 *
 * Opening a request is open to anyone and grants nothing: only an admin's approval does, and only
 * the device holding the claim secret collects the token it unlocks.
 */
export const pairing = new Hono<AppEnv>();

pairing.use("*", countRejections("/v1/pairing"));

pairing.post("/", async (c) => {
  const body = await readJsonBody(c, PairingRequestBody, 4096);
  if (!body.ok) return body.response;
  const settings = pairingSettings(c.env);
  if (!settings.ok) return problemResponse(503, "Pairing misconfigured", settings.error);
  const outcome = await deploymentOf(c.env).openPairing(body.value, settings.value);
  if (outcome.ok) return c.json(outcome.opened, 201, { "cache-control": "no-store" });
  return problemResponse(
    429,
    "Too many pairing requests",
    "too many devices are waiting for approval; try again once some are approved, denied or expired",
    {},
    { "retry-after": "60" },
  );
});

pairing.post("/claim", async (c) => {
  const secret = bearerToken(c.req.header("authorization"));
  if (!secret?.startsWith("pcl_"))
    return problemResponse(401, "Unauthorized", "send Authorization: Bearer <claim_secret from POST /v1/pairing>");
  const answer = await deploymentOf(c.env).claimPairing(secret);
  if (answer.ok) return c.json(answer.claim, 200, { "cache-control": "no-store" });
  if (answer.reason === "claimed")
    return problemResponse(410, "Already collected", "this request's token was collected already; pair again");
  if (answer.reason === "expired")
    return problemResponse(410, "Pairing expired", "the code expired before it was approved; pair again");
  return problemResponse(404, "Not found", "no pairing request for this claim secret (expired or never opened)");
});

// The admin's side: each route names its guard, so none depends on the order routes were added in.
pairing.get("/", authorizeAdmin, async (c) => {
  const { DEVICE_TOKENS } = c.var.config;
  const pending = await deploymentOf(c.env).pendingPairings();
  const known = await Promise.all(
    pending.map(async (p) => DEVICE_TOKENS.has(p.agent_id) || (await hubFor(c.env, p.agent_id).isKnown())),
  );
  return c.json({ pending: pending.map((p, i) => ({ ...p, known_device: known[i] })) });
});

pairing.post("/:code/approve", authorizeAdmin, async (c) => {
  const code = PairingCode.safeParse(c.req.param("code"));
  if (!code.success) return badCode();
  // The body is optional: an empty one approves under the id the device asked for.
  const raw = await readRawBody(c, 4096);
  if (!raw.ok) return raw.response;
  const body = parseJsonBody(PairingApproveBody, raw.value.trim() || "{}");
  if (!body.ok) return body.response;
  const decision = { by: decidedBy(c), ...(body.value.agent_id ? { agentId: body.value.agent_id } : {}) };
  return decided(c, code.data, await deploymentOf(c.env).approvePairing(code.data, decision));
});

pairing.post("/:code/deny", authorizeAdmin, async (c) => {
  const code = PairingCode.safeParse(c.req.param("code"));
  if (!code.success) return badCode();
  return decided(c, code.data, await deploymentOf(c.env).denyPairing(code.data, decidedBy(c)));
});

const badCode = () =>
  problemResponse(400, "Invalid pairing code", "a pairing code is 8 letters and digits, like ABCD-2345");

/** Who decided, for the record: the admin token, or the dashboard's session standing for it. */
const decidedBy = (c: Context<AppEnv>) => `${c.var.principal.id}${c.req.header("authorization") ? "" : " (dashboard)"}`;

function decided(c: Context<AppEnv>, code: string, outcome: DecideOutcome): Response {
  if (outcome.ok) return c.json(outcome.request);
  if (outcome.reason === "not_found") return problemResponse(404, "Not found", `no pairing request '${code}'`);
  if (outcome.reason === "expired") return problemResponse(410, "Pairing expired", `the code '${code}' expired`);
  return problemResponse(409, "Already decided", `the code '${code}' was ${outcome.status} already; a code works once`);
}
