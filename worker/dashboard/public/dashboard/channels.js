// @ts-check
/**
 * The chat channels panel (docs/channels.md): which platforms are configured, pairing codes
 * waiting (approved here with the devices the user may reach), the grants, and recent refusals,
 * through `/v1/channels`.
 */
import { api, every } from "./api.js";
import { byId, el, field, replace, table } from "./dom.js";
import { ago } from "./format.js";

/** @param {string} id a field holding a comma-separated list */
const csv = (id) =>
  field(id)
    .value.split(",")
    .map((s) => s.trim())
    .filter((s) => s.length > 0);

/** @param {unknown} e */
const showError = (e) =>
  replace("pairing-result", el("p", { class: "error-text", role: "alert", text: /** @type {Error} */ (e).message }));

/** @param {{ agents: string[], pools: string[] }} g */
const reach = (g) => g.agents.concat(g.pools.map((p) => `pool ${p}`)).join(", ");

/** @param {any} status */
function render(status) {
  byId("pairings-count").textContent = String(status.pairings.length);
  replace(
    "channel-platforms",
    el(
      "p",
      {},
      ...status.platforms.map(
        /** @param {any} p */ (p) =>
          el("span", {
            class: `badge ${p.configured ? "ok" : "off"}`,
            title: p.error || p.webhook_path,
            text: `${p.platform}: ${p.configured ? "on" : "off"}`,
          }),
      ),
    ),
  );
  const waiting = el("tbody");
  for (const p of status.pairings) {
    const use = () => {
      field("pairing-code").value = p.code;
      field("pairing-agents").focus();
    };
    waiting.appendChild(
      el(
        "tr",
        {},
        el("td", { class: "mono", text: p.code }),
        el("td", { text: p.platform }),
        el("td", { text: `${p.user_name} (${p.user_id})` }),
        el("td", { class: "nowrap", text: ago(p.created_at) }),
        el(
          "td",
          {},
          el("button", { type: "button", "aria-label": `Approve ${p.code}`, text: "Approve…", onclick: use }),
        ),
      ),
    );
  }
  replace(
    "channel-pairings",
    status.pairings.length
      ? table(["Code", "Platform", "User", "Asked", ""], waiting)
      : el("p", { class: "empty", text: "No pairing codes waiting." }),
  );
  const grants = el("tbody");
  for (const g of status.grants) {
    const revoke = () =>
      api(`/v1/channels/grants/${encodeURIComponent(g.platform)}/${encodeURIComponent(g.subject)}`, {
        method: "DELETE",
        body: {},
      })
        .then(refreshChannels)
        .catch(showError);
    grants.appendChild(
      el(
        "tr",
        {},
        el("td", { text: g.platform }),
        el("td", { text: `${g.name} (${g.subject})` }),
        el("td", { text: reach(g) }),
        el("td", {}, el("button", { type: "button", class: "deny", text: "Revoke", onclick: revoke })),
      ),
    );
  }
  replace(
    "channel-grants",
    status.grants.length
      ? table(["Platform", "Who", "Devices", ""], grants)
      : el("p", { class: "empty", text: "No grants: nobody reaches a device from a chat." }),
  );
  replace(
    "channel-audit",
    el(
      "ul",
      { "aria-label": "Recent refusals" },
      ...status.audit
        .slice(0, 10)
        .map(
          /** @param {any} a */ (a) =>
            el("li", { text: `${ago(a.at)} · ${a.platform} · ${a.user_name} (${a.user_id}) · ${a.action}` }),
        ),
    ),
  );
}

function refreshChannels() {
  return api("/v1/channels")
    .then(render)
    .catch(() => {});
}

/** @param {Event} event */
function approvePairing(event) {
  event.preventDefault();
  const code = field("pairing-code").value.trim().toUpperCase();
  api(`/v1/channels/pairings/${encodeURIComponent(code)}/approve`, {
    method: "POST",
    body: { agents: csv("pairing-agents"), pools: csv("pairing-pools") },
  })
    .then((r) => {
      replace("pairing-result", el("p", { text: `Paired ${r.pairing.user_name}: may reach ${reach(r.grant)}.` }));
      field("pairing-code").value = "";
      refreshChannels();
    })
    .catch(showError);
}

export function startChannels() {
  byId("pairing-form").addEventListener("submit", approvePairing);
  every(refreshChannels, 10000);
}
