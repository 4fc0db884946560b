// @ts-check
/**
 * The API keys panel: keys are issued (the new key is shown once, in the page only), listed and
 * revoked through `/v1/keys`.
 */
import { api, every } from "./api.js";
import { byId, el, field, replace, table } from "./dom.js";
import { ago } from "./format.js";

/** @param {string} id a field holding a comma-separated list */
function csv(id) {
  return field(id)
    .value.split(",")
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

/** @param {unknown} e */
const showError = (e) =>
  replace("key-issued", el("p", { class: "error-text", role: "alert", text: /** @type {Error} */ (e).message }));

/** @param {any[]} keys */
function renderKeys(keys) {
  byId("keys-count").textContent = String(keys.filter((k) => !k.revoked_at).length);
  if (keys.length === 0)
    return replace(
      "keys",
      el("p", {
        class: "empty",
        text: "No keys. Issue one above: it sees only the conversations it starts, on its devices.",
      }),
    );
  const body = el("tbody");
  for (const k of keys) {
    const devices = k.agents.concat(k.pools.map(/** @param {string} p */ (p) => `pool ${p}`)).join(", ");
    const revoke = () =>
      api(`/v1/keys/${encodeURIComponent(k.key_id)}`, { method: "DELETE", body: {} })
        .then(refreshKeys)
        .catch(showError);
    const action = k.revoked_at
      ? el("span", { text: "—" })
      : el("button", {
          type: "button",
          class: "deny",
          "aria-label": `Revoke ${k.key_id}`,
          text: "Revoke",
          onclick: revoke,
        });
    body.appendChild(
      el(
        "tr",
        {},
        el("td", { class: "mono", text: k.key_id }),
        el("td", { text: k.name }),
        el(
          "td",
          {},
          el("span", { class: `badge ${k.revoked_at ? "off" : "ok"}`, text: k.revoked_at ? "revoked" : "active" }),
        ),
        el("td", { text: devices }),
        el("td", { text: k.scopes.length >= 8 ? "all" : k.scopes.join(", ") }),
        el("td", { class: "nowrap", text: ago(k.last_used_at) }),
        el("td", {}, action),
      ),
    );
  }
  replace("keys", table(["Key", "Name", "State", "Devices", "Scopes", "Last used", "Actions"], body));
}

function refreshKeys() {
  return api("/v1/keys")
    .then((r) => renderKeys(r.keys))
    .catch(() => {});
}

/** @param {Event} event */
function issueKey(event) {
  event.preventDefault();
  /** @type {{ name: string, agents: string[], pools: string[], scopes?: string[] }} */
  const body = { name: field("key-name").value.trim(), agents: csv("key-agents"), pools: csv("key-pools") };
  const scopes = csv("key-scopes");
  if (scopes.length > 0) body.scopes = scopes;
  api("/v1/keys", { method: "POST", body })
    .then((k) => {
      // Shown here once, never stored by the page: the server keeps only its hash.
      replace(
        "key-issued",
        el(
          "p",
          {},
          `Key for ${k.name} (shown once, copy it now): `,
          el("code", { class: "mono", id: "key-secret", text: k.key }),
        ),
      );
      field("key-name").value = "";
      refreshKeys();
    })
    .catch(showError);
}

export function startKeys() {
  byId("key-form").addEventListener("submit", issueKey);
  every(refreshKeys, 10000);
}
