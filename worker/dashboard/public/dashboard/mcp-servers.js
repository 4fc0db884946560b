// @ts-check
/**
 * The remote MCP servers panel: the `MCP_SERVERS` entries that need OAuth, their state, and a
 * Connect button that starts the same flow as `edgeloop mcp connect <name>`
 * (docs/mcp.md#connecting-a-remote-server-that-needs-oauth): the worker answers with the server's
 * authorization link, and this tab goes there; the server's authorization server sends the admin
 * back to the worker's callback, which says whether it is connected.
 */
import { api, every } from "./api.js";
import { byId, el, replace, table } from "./dom.js";
import { ago } from "./format.js";

/** The state as the CLI words it. */
const STATUS_TEXT = /** @type {Record<string, string>} */ ({
  not_connected: "not connected",
  connecting: "waiting for the authorization link to be opened",
  connected: "connected",
  needs_consent: "needs consent",
});

/** @param {string} text */
const showStatus = (text) => replace("mcp-server-status", el("p", { class: "error-text", role: "alert", text }));

/** @param {string} name */
function connect(name) {
  return api(`/v1/mcp-servers/${encodeURIComponent(name)}/connect`, { method: "POST", body: {} })
    .then((r) => {
      if (r.status === "authorize") location.assign(r.authorization_url);
      else refreshServers();
    })
    .catch((/** @type {Error} */ e) => showStatus(e.message));
}

/** @param {any[]} servers */
function renderServers(servers) {
  byId("mcp-servers-count").textContent = String(servers.length);
  if (servers.length === 0)
    return replace(
      "mcp-servers",
      el("p", { class: "empty", text: "No MCP server in MCP_SERVERS needs OAuth (docs/mcp.md)." }),
    );
  const body = el("tbody");
  for (const s of servers) {
    const ready = s.status === "connected";
    body.appendChild(
      el(
        "tr",
        {},
        el("td", { class: "mono", text: s.name }),
        el("td", { text: STATUS_TEXT[s.status] || s.status }),
        el("td", { text: s.detail || "" }),
        el("td", { class: "nowrap", text: s.updated_at ? ago(s.updated_at) : "" }),
        el(
          "td",
          {},
          el("button", {
            type: "button",
            class: ready ? "" : "primary",
            "aria-label": `${ready ? "Reconnect" : "Connect"} ${s.name}`,
            text: ready ? "Reconnect" : "Connect",
            onclick: () => connect(s.name),
          }),
        ),
      ),
    );
  }
  replace("mcp-servers", table(["Server", "State", "Detail", "Changed", "Actions"], body));
}

function refreshServers() {
  return api("/v1/mcp-servers")
    .then((r) => renderServers(r.servers))
    .catch(() => {});
}

export function startMcpServers() {
  every(refreshServers, 10000);
}
