// @ts-check
/**
 * The device tokens panel: a token is issued for a device id (shown once, in the page only: the
 * hub keeps only its hash), listed per device and revoked, through `/v1/devices/:agent_id/tokens`.
 * The devices listed are the ones the registry knows plus any this page issued a token for.
 */
import { api, every } from "./api.js";
import { byId, el, field, replace, table } from "./dom.js";
import { ago } from "./format.js";
import { state } from "./state.js";

/** devices this page issued a token for, listed even before they first connect */
const issuedFor = new Set();

/** @param {unknown} e */
const showError = (e) =>
  replace("token-issued", el("p", { class: "error-text", role: "alert", text: /** @type {Error} */ (e).message }));

/** @param {string} agentId */
const tokensPath = (agentId) => `/v1/devices/${encodeURIComponent(agentId)}/tokens`;

/** @param {{ agent_id: string, token_id: string, created_at: number, last_used_at?: number | null }[]} rows */
function renderTokens(rows) {
  byId("tokens-count").textContent = String(rows.length);
  if (rows.length === 0)
    return replace(
      "device-tokens",
      el("p", { class: "empty", text: "No issued tokens (devices may also use DEVICE_TOKENS)." }),
    );
  const body = el("tbody");
  for (const t of rows) {
    const revoke = () =>
      api(`${tokensPath(t.agent_id)}/${encodeURIComponent(t.token_id)}`, { method: "DELETE", body: {} })
        .then(refreshTokens)
        .catch(showError);
    body.appendChild(
      el(
        "tr",
        {},
        el("td", {}, el("strong", { text: t.agent_id })),
        el("td", { class: "mono", text: t.token_id }),
        el("td", { class: "nowrap", text: new Date(t.created_at).toLocaleString() }),
        el("td", { class: "nowrap", text: ago(t.last_used_at) }),
        el(
          "td",
          {},
          el("button", {
            type: "button",
            class: "deny",
            "aria-label": `Revoke token ${t.token_id} of ${t.agent_id}`,
            text: "Revoke",
            onclick: revoke,
          }),
        ),
      ),
    );
  }
  replace("device-tokens", table(["Device", "Token", "Issued", "Last used", "Actions"], body));
}

async function refreshTokens() {
  const ids = new Set([...state.chatDevices.map((d) => String(d.agent_id)), ...issuedFor]);
  try {
    const lists = await Promise.all(
      [...ids].sort().map(async (id) => {
        const r = await api(tokensPath(id));
        return r.tokens.map(/** @param {any} t */ (t) => ({ ...t, agent_id: id }));
      }),
    );
    renderTokens(lists.flat());
  } catch {
    /* the next refresh tries again */
  }
}

/** @param {Event} event */
function issueToken(event) {
  event.preventDefault();
  const agentId = field("token-agent").value.trim();
  api(tokensPath(agentId), { method: "POST", body: {} })
    .then((t) => {
      issuedFor.add(t.agent_id);
      // Shown here once, never stored by the page.
      replace(
        "token-issued",
        el(
          "p",
          {},
          `Token for ${t.agent_id} (shown once, copy it now): `,
          el("code", { class: "mono", id: "device-token-secret", text: t.token }),
        ),
      );
      field("token-agent").value = "";
      refreshTokens();
    })
    .catch(showError);
}

export function startDeviceTokens() {
  byId("token-form").addEventListener("submit", issueToken);
  every(refreshTokens, 10000);
}
