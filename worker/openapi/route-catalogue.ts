import { ACCESS_ROUTES } from "./access-routes.js";
import { CHANNEL_ROUTES } from "./channel-routes.js";
import { CONVERSATION_ROUTES } from "./conversation-routes.js";
import { DEVICE_ROUTES } from "./device-routes.js";
import { HOOK_ROUTES } from "./hook-routes.js";
import { LONG_LIVED_ROUTES } from "./long-lived-routes.js";
import { MCP_SERVER_ROUTES } from "./mcp-server-routes.js";
import { OAUTH_ROUTES } from "./oauth-routes.js";
import { OPENCLAW_ROUTES } from "./openclaw-routes.js";
import { PAIRING_ROUTES } from "./pairing-routes.js";
import { json, PUBLIC, type Route, text } from "./route.js";

/**
 * Every route the worker serves, as the OpenAPI document (openapi-document.ts) and docs/api.md
 * describe it. A worker test checks this list against the routes the Hono app registers, both
 * ways, so a route cannot be added or removed without its entry here.
 */
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
    method: "GET",
    path: "/install",
    summary:
      "The device install script (`curl -fsSL <worker>/install | sudo sh`): installs the agent this worker " +
      "serves at /agent/edgeloop-agent.tgz, pairs it, runs it as a systemd service",
    tag: "meta",
    auth: PUBLIC,
    responses: { 200: text("a POSIX sh script with this worker's URL filled in", "text/plain") },
  },
  ...CONVERSATION_ROUTES,
  ...DEVICE_ROUTES,
  ...LONG_LIVED_ROUTES,
  ...ACCESS_ROUTES,
  ...OAUTH_ROUTES,
  ...CHANNEL_ROUTES,
  ...OPENCLAW_ROUTES,
  ...HOOK_ROUTES,
  ...PAIRING_ROUTES,
  ...MCP_SERVER_ROUTES,
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
];
