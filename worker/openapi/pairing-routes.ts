import {
  PairingApproveBody,
  PairingClaim,
  PairingList,
  PairingOpened,
  PairingRequestBody,
  PairingView,
} from "@edgeloop/protocol/pairing";
import { ADMIN, json, PUBLIC, problem, type Route } from "./route.js";

/** Pairing: a device asks, an admin approves its code, the device collects its own token (docs/security.md). */
export const PAIRING_ROUTES: Route[] = [
  {
    method: "POST",
    path: "/v1/pairing",
    summary: "Ask to pair a device: a short code to show, and the claim secret only this device collects with",
    tag: "pairing",
    auth: PUBLIC,
    body: PairingRequestBody,
    responses: {
      201: json("the request", PairingOpened),
      429: problem("too many requests waiting (PAIRING_MAX_PENDING)"),
    },
  },
  {
    method: "POST",
    path: "/v1/pairing/claim",
    summary:
      "Collect a pairing request's outcome with `Authorization: Bearer <claim_secret>`; an approval's token once",
    tag: "pairing",
    auth: PUBLIC,
    responses: {
      200: json("pending, denied, or approved with the device's token", PairingClaim),
      404: problem("no request for this claim secret"),
      410: problem("expired, or its token was collected already"),
    },
  },
  {
    method: "GET",
    path: "/v1/pairing",
    summary: "Pairing requests waiting for approval, and whether each asks for an id that already has a device",
    tag: "pairing",
    auth: ADMIN,
    responses: { 200: json("oldest first", PairingList) },
  },
  {
    method: "POST",
    path: "/v1/pairing/:code/approve",
    summary: "Approve a pairing code (once), optionally under another device id; the device then collects its token",
    tag: "pairing",
    auth: ADMIN,
    body: PairingApproveBody,
    responses: {
      200: json("the request, approved", PairingView),
      409: problem("decided already"),
      410: problem("expired"),
    },
  },
  {
    method: "POST",
    path: "/v1/pairing/:code/deny",
    summary: "Deny a pairing code (once)",
    tag: "pairing",
    auth: ADMIN,
    responses: {
      200: json("the request, denied", PairingView),
      409: problem("decided already"),
      410: problem("expired"),
    },
  },
];
