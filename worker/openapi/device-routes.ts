import { AuditQueryParams } from "@edgeloop/protocol";
import {
  AuditPage,
  DeviceList,
  IssuedToken,
  MetricsReport,
  RevokedKeysCleared,
  TokenList,
  TokenRevoked,
} from "@edgeloop/protocol/api-responses";
import { ADMIN, api, json, problem, type Route, text } from "./route.js";

/** Devices, their tokens, and what operators read: audit, limits, metrics. */
export const DEVICE_ROUTES: Route[] = [
  {
    method: "GET",
    path: "/v1/devices/:agent_id/connect",
    summary: "The device WebSocket (docs/protocol.md)",
    tag: "devices",
    auth: { kind: "device" },
    responses: { 101: { description: "switching to the WebSocket" } },
  },
  {
    method: "GET",
    path: "/v1/devices",
    summary: "Every device in the registry (a key: its devices) and the configured pools",
    tag: "devices",
    auth: api("devices:read"),
    responses: { 200: json("devices and pools", DeviceList) },
  },
  {
    method: "GET",
    path: "/v1/devices/:agent_id",
    summary: "A device: online, last seen, version, skills, command counts, frame counters",
    tag: "devices",
    auth: api("devices:read"),
    responses: { 200: json("the device") },
  },
  {
    method: "GET",
    path: "/v1/devices/:agent_id/clips/:hash",
    summary:
      "A video clip an OpenClaw node recorded, by its SHA-256, as its tool's result links it (docs/openclaw-nodes.md)",
    tag: "devices",
    auth: api("devices:read"),
    responses: {
      200: text("the clip (video/mp4), cacheable for good (its address is its content)", "video/*"),
      404: problem("no such clip on this device, or a device the caller may not reach"),
    },
  },
  {
    method: "POST",
    path: "/v1/devices/:agent_id/tokens",
    summary: "Issue a device token, shown once (only its hash is kept)",
    tag: "devices",
    auth: ADMIN,
    responses: { 201: json("the token", IssuedToken) },
  },
  {
    method: "GET",
    path: "/v1/devices/:agent_id/tokens",
    summary: "A device's token ids, created and last used",
    tag: "devices",
    auth: ADMIN,
    responses: { 200: json("the tokens, never their secrets", TokenList) },
  },
  {
    method: "DELETE",
    path: "/v1/devices/:agent_id/tokens/:token_id",
    summary: "Revoke a device token; a socket using it is closed at once (4001)",
    tag: "devices",
    auth: ADMIN,
    responses: { 200: json("revoked", TokenRevoked) },
  },
  {
    method: "DELETE",
    path: "/v1/devices/:agent_id/revoked-keys",
    summary:
      "Clear the OpenClaw device keys revoked on this id (a revoked token's, a denied request's): each may ask to pair again",
    tag: "devices",
    auth: ADMIN,
    responses: { 200: json("the keys cleared", RevokedKeysCleared) },
  },
  {
    method: "GET",
    path: "/v1/audit",
    summary: "Tool invocations across devices, secrets redacted",
    tag: "operations",
    auth: ADMIN,
    query: AuditQueryParams,
    responses: { 200: json("newest first", AuditPage) },
  },
  {
    method: "GET",
    path: "/v1/limits",
    summary: "The limits in force and the refusal counters",
    tag: "operations",
    auth: ADMIN,
    responses: { 200: json("limits and counters") },
  },
  {
    method: "GET",
    path: "/v1/metrics",
    summary: "Tool and loop metrics (`since`, `agent_id`); Prometheus text with `Accept: text/plain`",
    tag: "operations",
    auth: ADMIN,
    responses: { 200: json("the report (or Prometheus text)", MetricsReport) },
  },
];
