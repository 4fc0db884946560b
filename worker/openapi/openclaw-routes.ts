import { JoinPayload, NodeSetup, NodeSetupRequest } from "@edgeloop/protocol/openclaw-onboarding";
import { ADMIN, json, PUBLIC, problem, type Route } from "./route.js";

/** OpenClaw nodes as edgeloop devices (docs/openclaw-nodes.md). */
export const OPENCLAW_ROUTES: Route[] = [
  {
    method: "GET",
    path: "/v1/openclaw/:agent_id",
    summary:
      "An OpenClaw node's WebSocket (OpenClaw's gateway protocol v4, v3 for older nodes): credentials come in its `connect` frame",
    tag: "openclaw",
    auth: PUBLIC,
    responses: { 101: { description: "switching to the WebSocket; the hub sends `connect.challenge`" } },
  },
  {
    method: "GET",
    path: "/v1/openclaw/:agent_id/j/:code",
    summary:
      "The join URL `openclaw connect` fetches: the setup payload, while the code is live (the code is the credential)",
    tag: "openclaw",
    auth: PUBLIC,
    responses: { 200: json("OpenClaw's setup payload", JoinPayload), 404: problem("unknown, used or expired") },
  },
  {
    method: "POST",
    path: "/v1/openclaw/:agent_id/setup",
    summary:
      "A one-use setup code and join URL for a new node, with the `openclaw node run --pair …` / `openclaw connect …` lines",
    tag: "openclaw",
    auth: ADMIN,
    body: NodeSetupRequest,
    responses: { 201: json("the setup, shown once", NodeSetup) },
  },
];
