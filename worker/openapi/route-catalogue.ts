import { AuditQueryParams, MessageAccepted, MessageRequest, WaitQuery, WaitReply } from "@edgeloop/protocol";
import { ApiKeyView, CreateKeyRequest, IssuedKey, type KeyScope } from "@edgeloop/protocol/api-keys";
import {
  AuditPage,
  ConversationList,
  ConversationView,
  Decision,
  DeviceList,
  IssuedToken,
  MetricsReport,
  TokenList,
  TokenRevoked,
} from "@edgeloop/protocol/api-responses";
import { ApprovalDecision, ApprovalRule, ApprovalRuleRequest } from "@edgeloop/protocol/approval-rules";
import { ScheduleRequest, ScheduleView } from "@edgeloop/protocol/schedules";
import { z } from "zod";

/**
 * Every route the worker serves, as the OpenAPI document (openapi-document.ts) and docs/api.md
 * describe it. A worker test checks this list against the routes the Hono app registers, both
 * ways, so a route cannot be added or removed without its entry here.
 */

/**
 * Who may call a route. `api`: the API token, the admin token, or a scoped key with `scope`;
 * `admin`: the admin token (or the dashboard's session); `message`: as `api` with `messages`, or a
 * signed webhook (MESSAGE_AUTH); `device`: a device token.
 */
export type RouteAuth =
  | { kind: "public" }
  | { kind: "api"; scope: KeyScope }
  | { kind: "admin" }
  | { kind: "device" }
  | { kind: "message" };

export type RouteResponse = {
  description: string;
  /** a JSON body's schema; absent for bodies that are not JSON (see `mediaType`) or empty */
  schema?: z.ZodType;
  /** the body's media type when it is not JSON */
  mediaType?: string;
};

export type Route = {
  method: "GET" | "POST" | "DELETE";
  /** Hono's form: `/v1/conversations/:id` */
  path: string;
  summary: string;
  tag: string;
  auth: RouteAuth;
  /** a JSON request body */
  body?: z.ZodType;
  /** query parameters, one per property */
  query?: z.ZodObject;
  /** success answers by status code; errors are problem+json (listed once per route by the document) */
  responses: Record<number, RouteResponse>;
};

const json = (description: string, schema?: z.ZodType): RouteResponse => ({ description, schema });
const text = (description: string, mediaType: string): RouteResponse => ({ description, mediaType });
const api = (scope: KeyScope): RouteAuth => ({ kind: "api", scope });
const ADMIN: RouteAuth = { kind: "admin" };
const PUBLIC: RouteAuth = { kind: "public" };

const Revoked = (idField: string) =>
  z.looseObject({ [idField]: z.string(), revoked: z.boolean(), already_revoked: z.boolean() });

export const ROUTES: Route[] = [
  { method: "GET", path: "/healthz", summary: "Liveness", tag: "meta", auth: PUBLIC, responses: { 200: json("up") } },
  {
    method: "GET",
    path: "/openapi.json",
    summary: "This document",
    tag: "meta",
    auth: PUBLIC,
    responses: { 200: json("the OpenAPI 3.1 document") },
  },
  {
    method: "POST",
    path: "/v1/messages",
    summary: "Send a message to a device or a pool; `?wait=N` (seconds) waits for the reply",
    tag: "messages",
    auth: { kind: "message" },
    body: MessageRequest,
    query: z.object({ wait: WaitQuery.optional() }),
    responses: {
      200: json("with `?wait=N`: the reply, or the run so far when N seconds pass", WaitReply),
      202: json("accepted; the loop runs in the conversation's Durable Object", MessageAccepted),
    },
  },
  {
    method: "GET",
    path: "/v1/conversations",
    summary: "The newest conversations from the index (`limit`, `agent_id`, `status`); a key sees its own",
    tag: "conversations",
    auth: api("conversations:read"),
    responses: { 200: json("newest first", ConversationList) },
  },
  {
    method: "GET",
    path: "/v1/conversations/:id",
    summary: "History, status, replies, pending calls and compactions of a conversation",
    tag: "conversations",
    auth: api("conversations:read"),
    responses: { 200: json("the conversation", ConversationView) },
  },
  {
    method: "GET",
    path: "/v1/conversations/:id/events",
    summary: "The conversation's events as Server-Sent Events; `Last-Event-ID` resumes",
    tag: "conversations",
    auth: api("conversations:read"),
    responses: { 200: text("the event stream", "text/event-stream") },
  },
  {
    method: "POST",
    path: "/v1/conversations/:id/cancel",
    summary: "Stop the running loop",
    tag: "conversations",
    auth: api("conversations:write"),
    responses: { 200: json("cancelled, or nothing was running") },
  },
  {
    method: "POST",
    path: "/v1/conversations/:id/approvals/:call",
    summary: "Approve or deny a call waiting for approval; `scope` always/deny_always remembers it as a rule",
    tag: "conversations",
    auth: api("conversations:write"),
    body: ApprovalDecision,
    responses: { 200: json("decided", Decision) },
  },
  {
    method: "POST",
    path: "/v1/conversations/:id/answers/:call",
    summary: "Answer the model's `question` with `{answer}`",
    tag: "conversations",
    auth: api("conversations:write"),
    responses: { 200: json("answered", Decision) },
  },
  {
    method: "GET",
    path: "/v1/conversations/:id/canvas",
    summary: "The conversation's canvas artifact (HTML under a no-script CSP, or markdown)",
    tag: "conversations",
    auth: api("conversations:read"),
    responses: { 200: text("the artifact", "text/html") },
  },
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
  {
    method: "POST",
    path: "/v1/schedules",
    summary: "Schedule a message (cron, every N seconds, or once); each run goes through the front door",
    tag: "schedules",
    auth: api("schedules"),
    body: ScheduleRequest,
    responses: {
      201: json(
        "scheduled",
        z.looseObject({ schedule_id: z.string(), next_run_at: ScheduleView.shape.next_run_at, schedule: ScheduleView }),
      ),
    },
  },
  {
    method: "GET",
    path: "/v1/schedules",
    summary: "List schedules (a key: its own)",
    tag: "schedules",
    auth: api("schedules"),
    responses: { 200: json("the schedules", z.looseObject({ schedules: z.array(ScheduleView) })) },
  },
  {
    method: "GET",
    path: "/v1/schedules/:id",
    summary: "Show a schedule",
    tag: "schedules",
    auth: api("schedules"),
    responses: { 200: json("the schedule", ScheduleView) },
  },
  {
    method: "DELETE",
    path: "/v1/schedules/:id",
    summary: "Delete a schedule",
    tag: "schedules",
    auth: api("schedules"),
    responses: { 200: json("deleted", z.looseObject({ schedule_id: z.string(), deleted: z.boolean() })) },
  },
  {
    method: "POST",
    path: "/v1/schedules/:id/pause",
    summary: "Pause a schedule",
    tag: "schedules",
    auth: api("schedules"),
    responses: { 200: json("the schedule", ScheduleView) },
  },
  {
    method: "POST",
    path: "/v1/schedules/:id/resume",
    summary: "Resume a schedule",
    tag: "schedules",
    auth: api("schedules"),
    responses: { 200: json("the schedule", ScheduleView) },
  },
  {
    method: "GET",
    path: "/v1/approval-rules",
    summary: "List remembered approval decisions (a key: its own)",
    tag: "approval rules",
    auth: api("approval_rules"),
    responses: { 200: json("the rules", z.looseObject({ rules: z.array(ApprovalRule) })) },
  },
  {
    method: "POST",
    path: "/v1/approval-rules",
    summary: "Make an approval rule",
    tag: "approval rules",
    auth: api("approval_rules"),
    body: ApprovalRuleRequest,
    responses: { 201: json("the rule", ApprovalRule) },
  },
  {
    method: "GET",
    path: "/v1/approval-rules/:id",
    summary: "Show an approval rule",
    tag: "approval rules",
    auth: api("approval_rules"),
    responses: { 200: json("the rule", ApprovalRule) },
  },
  {
    method: "DELETE",
    path: "/v1/approval-rules/:id",
    summary: "Revoke an approval rule",
    tag: "approval rules",
    auth: api("approval_rules"),
    responses: { 200: json("revoked", Revoked("rule_id")) },
  },
  {
    method: "POST",
    path: "/mcp",
    summary: "The fleet as an MCP server (Streamable HTTP): device tools, send_message, list_devices, …",
    tag: "mcp",
    auth: api("mcp"),
    responses: { 200: json("a JSON-RPC answer (or an SSE stream of them)") },
  },
  {
    method: "DELETE",
    path: "/mcp",
    summary: "End an MCP session (`Mcp-Session-Id`)",
    tag: "mcp",
    auth: api("mcp"),
    responses: { 200: { description: "ended" } },
  },
  {
    method: "GET",
    path: "/mcp",
    summary: "Always 405: the server sends no stream outside a request",
    tag: "mcp",
    auth: api("mcp"),
    responses: { 405: json("JSON-RPC error -32000") },
  },
  {
    method: "POST",
    path: "/v1/keys",
    summary: "Issue a scoped API key, shown once (only its hash is kept)",
    tag: "keys",
    auth: ADMIN,
    body: CreateKeyRequest,
    responses: { 201: json("the key", IssuedKey) },
  },
  {
    method: "GET",
    path: "/v1/keys",
    summary: "List keys (never the keys themselves)",
    tag: "keys",
    auth: ADMIN,
    responses: { 200: json("the keys", z.looseObject({ keys: z.array(ApiKeyView) })) },
  },
  {
    method: "DELETE",
    path: "/v1/keys/:id",
    summary: "Revoke a key: the next request with it is refused",
    tag: "keys",
    auth: ADMIN,
    responses: { 200: json("revoked", Revoked("key_id")) },
  },
  {
    method: "GET",
    path: "/",
    summary: "The dashboard (the login form without a session)",
    tag: "dashboard",
    auth: PUBLIC,
    responses: { 200: text("the page", "text/html") },
  },
  {
    method: "POST",
    path: "/login",
    summary: "Log in to the dashboard with the admin token (form field `token`)",
    tag: "dashboard",
    auth: PUBLIC,
    responses: { 303: { description: "to the dashboard, with the session cookie" } },
  },
  {
    method: "POST",
    path: "/logout",
    summary: "End the dashboard session",
    tag: "dashboard",
    auth: PUBLIC,
    responses: { 303: { description: "to the login form" } },
  },
  {
    method: "GET",
    path: "/dashboard.js",
    summary: "The dashboard's script",
    tag: "dashboard",
    auth: PUBLIC,
    responses: { 200: text("the script", "text/javascript") },
  },
  {
    method: "GET",
    path: "/dashboard.css",
    summary: "The dashboard's styles",
    tag: "dashboard",
    auth: PUBLIC,
    responses: { 200: text("the styles", "text/css") },
  },
];
