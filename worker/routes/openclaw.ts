import { Identifier } from "@edgeloop/protocol";
import { encodeSetupCode, type JoinPayload, NodeSetupRequest } from "@edgeloop/protocol/openclaw-onboarding";
import { Hono } from "hono";
import type { z } from "zod";
import { hubFor } from "../../durable-objects/addresses.js";
import { WIRE_HEADER } from "../../durable-objects/device-hub/wires/device-wire.js";
import { problemResponse } from "../../runtime/problem.js";
import type { AppEnv } from "../env.js";
import { authorizeAdmin } from "../middleware/authorize.js";
import { countRejections } from "../middleware/count-rejections.js";

/**
 * OpenClaw nodes (docs/openclaw-nodes.md): the node's WebSocket, whose credentials come in its
 * first frame, so the upgrade is handed to the agent's hub unauthenticated (the hub challenges it
 * and lets nothing through before `connect`); the join URL `openclaw connect` fetches; and the
 * admin's onboarding: a setup code with the lines to run. (A node with only its device key waits
 * as a pairing request: `edgeloop devices approve <code>`, worker/routes/pairing.ts.)
 */
export const openclaw = new Hono<AppEnv>();

const validId = (id: string) => Identifier.safeParse(id).success;

/** The node's URL for this agent id, on the host the admin reached (ws:// for http://, wss:// for https://). */
function gatewayUrl(requestUrl: string, agentId: string): string {
  const u = new URL(requestUrl);
  return `${u.protocol === "https:" ? "wss:" : "ws:"}//${u.host}/v1/openclaw/${agentId}`;
}

openclaw.get("/:agent_id", countRejections("GET /v1/openclaw/:agent_id"), async (c) => {
  const agentId = c.req.param("agent_id");
  if (!validId(agentId)) return problemResponse(400, "Invalid agent id");
  if (c.req.header("upgrade")?.toLowerCase() !== "websocket")
    return problemResponse(
      426,
      "Upgrade required",
      "an OpenClaw node connects with a WebSocket",
      {},
      { upgrade: "websocket" },
    );
  // Nothing a client sent passes: the hub gets the upgrade, the agent id and the wire, no more.
  const headers = new Headers({ upgrade: "websocket", "x-edgeloop-agent-id": agentId, [WIRE_HEADER]: "openclaw" });
  return hubFor(c.env, agentId).fetch(new Request(c.req.url, { headers }));
});

/** `openclaw connect <join URL>`: the setup payload, while the code is live. The code is the credential. */
openclaw.get("/:agent_id/j/:code", countRejections("GET /v1/openclaw/:agent_id/j/:code"), async (c) => {
  const agentId = c.req.param("agent_id");
  const code = c.req.param("code");
  if (!validId(agentId) || !/^[A-Za-z0-9_-]{22}$/.test(code))
    return problemResponse(404, "Not found", "no such join code");
  const expires_at = await hubFor(c.env, agentId).nodeJoinExpiry(code);
  if (expires_at === null) return problemResponse(404, "Not found", "the join code is unknown, used or expired");
  const payload: z.infer<typeof JoinPayload> = {
    url: gatewayUrl(c.req.url, agentId),
    bootstrapToken: code,
    expiresAtMs: expires_at,
  };
  return c.json(payload, 200, { "cache-control": "no-store" });
});

const adminOnly = [countRejections("/v1/openclaw/:agent_id (admin)"), authorizeAdmin] as const;

/** A setup code and join URL for a new node, with the exact lines to run on it (shown once). */
openclaw.post("/:agent_id/setup", ...adminOnly, async (c) => {
  const agentId = c.req.param("agent_id");
  if (!validId(agentId)) return problemResponse(400, "Invalid agent id");
  const raw = c.req.header("content-length") === "0" ? {} : await c.req.json().catch(() => undefined);
  const parsed = NodeSetupRequest.safeParse(raw ?? {});
  if (!parsed.success) return problemResponse(400, "Invalid body", parsed.error.issues[0]?.message ?? "invalid");
  const minted = await hubFor(c.env, agentId).mintNodeSetup(parsed.data.ttl_seconds * 1000);
  const url = gatewayUrl(c.req.url, agentId);
  const setup_code = encodeSetupCode({ url, bootstrapToken: minted.secret, expiresAtMs: minted.expires_at });
  const join = new URL(c.req.url);
  const join_url = `${join.protocol}//${join.host}/v1/openclaw/${agentId}/j/${minted.secret}`;
  const body = {
    agent_id: agentId,
    gateway_url: url,
    setup_code,
    join_url,
    expires_at: minted.expires_at,
    run: `openclaw node run --pair oc-pair://${setup_code}`,
    connect: `openclaw connect ${join_url}`,
  };
  return c.json(body, 201, { "cache-control": "no-store" });
});
