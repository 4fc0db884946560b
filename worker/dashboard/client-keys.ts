/**
 * The dashboard's API keys panel: its HTML (spliced into dashboard-page.ts) and its script
 * (spliced into client-script.ts, using that closure's helpers `el`, `api`, `replace`, `byId`,
 * `ago`, `every`). Keys are issued (the new key is shown once, in the page only),
 * listed and revoked through `/v1/keys`.
 */
export const KEYS_HTML = `
  <section class="panel wide" aria-labelledby="h-keys">
    <h2 id="h-keys">API keys <span class="count" id="keys-count">0</span></h2>
    <form class="actions" id="key-form" aria-label="New API key">
      <input id="key-name" type="text" placeholder="name (tenant)" aria-label="Key name" maxlength="64" required>
      <input id="key-agents" type="text" placeholder="devices: pi-1, pi-2 or *" aria-label="Devices the key may use, comma-separated, * for every device">
      <input id="key-pools" type="text" placeholder="pools: kitchen" aria-label="Pools the key may use, comma-separated">
      <input id="key-scopes" type="text" placeholder="scopes (blank: all)" aria-label="Scopes, comma-separated; blank for all">
      <button type="submit" class="primary">Issue key</button>
    </form>
    <div id="key-issued" role="status" aria-live="polite"></div>
    <div id="keys"><p class="empty">Loading…</p></div>
  </section>`;

export const KEYS_JS = String.raw`
  // ---- API keys ---------------------------------------------------------------------------------
  function csv(id) {
    return byId(id).value.split(",").map(function (s) { return s.trim(); }).filter(function (s) { return s.length > 0; });
  }
  function renderKeys(keys) {
    byId("keys-count").textContent = String(keys.filter(function (k) { return !k.revoked_at; }).length);
    if (keys.length === 0) return replace("keys", el("p", { "class": "empty", text: "No keys. Issue one above: it sees only the conversations it starts, on its devices." }));
    var body = el("tbody");
    keys.forEach(function (k) {
      var devices = k.agents.concat(k.pools.map(function (p) { return "pool " + p; })).join(", ");
      var action = k.revoked_at ? el("span", { text: "—" }) : el("button", { type: "button", "class": "deny", "aria-label": "Revoke " + k.key_id, text: "Revoke", onclick: function () {
        api("/v1/keys/" + encodeURIComponent(k.key_id), { method: "DELETE", body: {} }).then(refreshKeys)
          .catch(function (e) { replace("key-issued", el("p", { "class": "error-text", role: "alert", text: e.message })); });
      } });
      body.appendChild(el("tr", {},
        el("td", { "class": "mono", text: k.key_id }),
        el("td", { text: k.name }),
        el("td", {}, el("span", { "class": "badge " + (k.revoked_at ? "off" : "ok"), text: k.revoked_at ? "revoked" : "active" })),
        el("td", { text: devices }),
        el("td", { text: k.scopes.length >= 8 ? "all" : k.scopes.join(", ") }),
        el("td", { "class": "nowrap", text: ago(k.last_used_at) }),
        el("td", {}, action)));
    });
    replace("keys", el("table", {},
      el("thead", {}, el("tr", {}, el("th", { scope: "col", text: "Key" }), el("th", { scope: "col", text: "Name" }), el("th", { scope: "col", text: "State" }), el("th", { scope: "col", text: "Devices" }), el("th", { scope: "col", text: "Scopes" }), el("th", { scope: "col", text: "Last used" }), el("th", { scope: "col", text: "Actions" }))),
      body));
  }
  function refreshKeys() {
    return api("/v1/keys").then(function (r) { renderKeys(r.keys); }).catch(function () {});
  }
  function issueKey(event) {
    event.preventDefault();
    var body = { name: byId("key-name").value.trim(), agents: csv("key-agents"), pools: csv("key-pools") };
    var scopes = csv("key-scopes");
    if (scopes.length > 0) body.scopes = scopes;
    api("/v1/keys", { method: "POST", body: body })
      .then(function (k) {
        // Shown here once, never stored by the page: the server keeps only its hash.
        replace("key-issued", el("p", {}, "Key for " + k.name + " (shown once, copy it now): ", el("code", { "class": "mono", id: "key-secret", text: k.key })));
        byId("key-name").value = "";
        refreshKeys();
      })
      .catch(function (e) { replace("key-issued", el("p", { "class": "error-text", role: "alert", text: e.message })); });
  }
  document.addEventListener("DOMContentLoaded", function () {
    byId("key-form").addEventListener("submit", issueKey);
    every(refreshKeys, 10000);
  });
`;
