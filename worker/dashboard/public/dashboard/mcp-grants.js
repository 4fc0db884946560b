// @ts-check
/**
 * The apps panel: the OAuth grants to `/mcp` (Claude, ChatGPT, … added by URL and allowed on the
 * consent page), listed and revoked through `/v1/mcp/grants` (docs/mcp.md#revoking-an-app).
 */
import { api, every } from "./api.js";
import { byId, el, replace, table } from "./dom.js";
import { ago } from "./format.js";

/** @param {unknown} e */
const showError = (e) =>
  replace("mcp-grant-status", el("p", { class: "error-text", role: "alert", text: /** @type {Error} */ (e).message }));

/** @param {any[]} grants */
function renderGrants(grants) {
  byId("mcp-grants-count").textContent = String(grants.length);
  if (grants.length === 0)
    return replace(
      "mcp-grants",
      el("p", { class: "empty", text: "No app is allowed. Add <worker URL>/mcp in Claude or ChatGPT (docs/mcp.md)." }),
    );
  const body = el("tbody");
  for (const g of grants) {
    const devices = g.agents.concat(g.pools.map(/** @param {string} p */ (p) => `pool ${p}`)).join(", ");
    const revoke = () =>
      api(`/v1/mcp/grants/${encodeURIComponent(g.grant_id)}`, { method: "DELETE", body: {} })
        .then(refreshGrants)
        .catch(showError);
    body.appendChild(
      el(
        "tr",
        {},
        el("td", { text: g.client_name }),
        el("td", { class: "mono", text: g.redirect_uri }),
        el("td", { text: devices }),
        el("td", { text: g.scopes.join(", ") }),
        el("td", { class: "mono", text: g.key_id }),
        el("td", { class: "nowrap", text: ago(g.created_at) }),
        el(
          "td",
          {},
          el("button", {
            type: "button",
            class: "deny",
            "aria-label": `Revoke ${g.client_name}`,
            text: "Revoke",
            onclick: revoke,
          }),
        ),
      ),
    );
  }
  replace("mcp-grants", table(["App", "Redirect", "Devices", "Scopes", "Key", "Allowed", "Actions"], body));
}

function refreshGrants() {
  return api("/v1/mcp/grants")
    .then((r) => renderGrants(r.grants))
    .catch(() => {});
}

export function startMcpGrants() {
  every(refreshGrants, 10000);
}
