// @ts-check
/**
 * The dashboard's entry module (a module script: it runs once the page is parsed). It reads
 * devices, conversations, pending calls, metrics and the audit log over the admin API (the session
 * cookie authenticates it), watches one conversation over its SSE stream, sends messages to a
 * device, a pool or that conversation, and draws the charts as inline SVG. Every value is
 * rendered as text, never as HTML.
 */
import { api, every } from "./api.js";
import { startChannels } from "./channels.js";
import { latencyByTool, overTime, renderToolTable } from "./charts.js";
import { chatTargets, startChat } from "./chat.js";
import { startDeviceTokens } from "./device-tokens.js";
import { setHealth } from "./dom.js";
import { startKeys } from "./keys.js";
import { startLongLived } from "./long-lived.js";
import { startMcpGrants } from "./mcp-grants.js";
import { startMcpServers } from "./mcp-servers.js";
import { startOpenClawSetup } from "./openclaw-setup.js";
import { startPairing } from "./pairing.js";
import { renderApprovals, renderConversations, renderDevices } from "./panels.js";
import { actions } from "./state.js";
import { select } from "./timeline.js";

function refreshDevices() {
  return api("/v1/devices")
    .then((r) => {
      renderDevices(r.devices);
      chatTargets(r.devices, r.pools || [], false);
      const online = r.devices.filter(/** @param {any} d */ (d) => d.online).length;
      const when = new Date().toLocaleTimeString();
      setHealth(true, `Worker reachable · ${online} of ${r.devices.length} devices online · updated ${when}`);
    })
    .catch((e) => setHealth(false, `Worker unreachable: ${e.message}`));
}

function refreshConversations() {
  return api("/v1/conversations?limit=25")
    .then((r) => renderConversations(r.conversations))
    .catch(() => {});
}

/** The calls waiting for a person, from each running conversation. */
async function refreshApprovals() {
  try {
    const running = await api("/v1/conversations?status=running&limit=50");
    const lists = await Promise.all(
      running.conversations.map(
        /** @param {any} c */ async (c) => {
          try {
            // One message is enough: only the pending calls are read (the history comes in pages).
            const view = await api(`/v1/conversations/${encodeURIComponent(c.conversation_id)}?limit=1`);
            return (view.pending_tool_calls || [])
              .filter(/** @param {any} p */ (p) => p.state === "awaiting_approval" || p.state === "awaiting_answer")
              .map(
                /** @param {any} p */ (p) => ({ conversation_id: c.conversation_id, agent_id: c.agent_id, call: p }),
              );
          } catch {
            return [];
          }
        },
      ),
    );
    renderApprovals(lists.flat());
  } catch {
    /* the next poll tries again */
  }
}

function refreshTools() {
  const since = new Date(Date.now() - 24 * 3600e3).toISOString();
  return Promise.all([api("/v1/metrics"), api(`/v1/audit?limit=1000&since=${encodeURIComponent(since)}`)])
    .then(([metrics, audit]) => {
      renderToolTable(metrics);
      latencyByTool(metrics);
      overTime(audit.entries || []);
    })
    .catch(() => {});
}

actions.select = select;
actions.refreshApprovals = refreshApprovals;
actions.refreshConversations = refreshConversations;

startChat();
startLongLived();
startKeys();
startMcpGrants();
startMcpServers();
startChannels();
startDeviceTokens();
startPairing();
startOpenClawSetup();
every(refreshDevices, 5000);
every(refreshConversations, 3000);
every(refreshApprovals, 3000);
every(refreshTools, 10000);
