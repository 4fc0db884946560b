import { Hono } from "hono";
import { problemResponse } from "../runtime/problem.js";
import type { AppEnv } from "./env.js";
import { mcp } from "./mcp/mcp-route.js";
import { loadConfig } from "./middleware/load-config.js";
import { oauth } from "./oauth/oauth-routes.js";
import { approvalRules } from "./routes/approval-rules.js";
import { audit } from "./routes/audit.js";
import { channels } from "./routes/channels.js";
import { conversations } from "./routes/conversations.js";
import { dashboard } from "./routes/dashboard.js";
import { devices } from "./routes/devices.js";
import { hooks } from "./routes/hooks.js";
import { install } from "./routes/install.js";
import { keys } from "./routes/keys.js";
import { limits } from "./routes/limits.js";
import { mcpGrants } from "./routes/mcp-grants.js";
import { mcpOAuth, mcpServers } from "./routes/mcp-servers.js";
import { messages } from "./routes/messages.js";
import { metrics } from "./routes/metrics.js";
import { openapi } from "./routes/openapi.js";
import { openclaw } from "./routes/openclaw.js";
import { pairing } from "./routes/pairing.js";
import { schedules } from "./routes/schedules.js";

export const app = new Hono<AppEnv>();

// Health, the API document and the device install script answer even when the settings do not
// parse; every other route reads them.
app.get("/healthz", (c) => c.json({ ok: true }));
app.route("/openapi.json", openapi);
app.route("/install", install);
app.use("*", loadConfig);
app.route("/v1/messages", messages);
app.route("/v1/conversations", conversations);
app.route("/v1/devices", devices);
app.route("/v1/audit", audit);
app.route("/v1/limits", limits);
app.route("/v1/metrics", metrics);
app.route("/v1/schedules", schedules);
app.route("/v1/approval-rules", approvalRules);
app.route("/mcp", mcp);
app.route("/", oauth);
app.route("/v1/keys", keys);
app.route("/v1/mcp/grants", mcpGrants);
app.route("/v1/channels", channels);
app.route("/v1/openclaw", openclaw);
app.route("/v1/hooks", hooks);
app.route("/v1/pairing", pairing);
app.route("/v1/mcp-servers", mcpServers);
app.route("/v1/mcp-oauth", mcpOAuth);
app.route("/", dashboard);

app.notFound((c) => problemResponse(404, "Not found", `${c.req.method} ${new URL(c.req.url).pathname}`));
app.onError((err) => {
  console.error(JSON.stringify({ level: "error", msg: "unhandled", error: String(err), stack: (err as Error).stack }));
  return problemResponse(500, "Internal error", "the request failed; see the worker logs");
});
