/**
 * The dashboard's schedules and approval-rules panels: their HTML (spliced into dashboard-page.ts)
 * and their script (spliced into client-script.ts, using that closure's helpers `el`, `api`,
 * `replace`, `byId`, `clip`, `ago`, `statusBadge`, `every`). Schedules can be made, paused,
 * resumed and deleted; rules listed and revoked.
 */
export const LONG_LIVED_HTML = `
  <section class="panel wide" aria-labelledby="h-schedules">
    <h2 id="h-schedules">Schedules <span class="count" id="schedules-count">0</span></h2>
    <form class="actions" id="schedule-form" aria-label="New schedule">
      <input id="schedule-agent" type="text" placeholder="device id" aria-label="Device id" required>
      <input id="schedule-text" type="text" placeholder="message text" aria-label="Message text" required>
      <input id="schedule-when" type="text" placeholder="cron (0 8 * * *) or seconds" aria-label="Cron expression or interval in seconds" required>
      <button type="submit" class="primary">Schedule</button>
    </form>
    <div id="schedules"><p class="empty">Loading…</p></div>
  </section>
  <section class="panel wide" aria-labelledby="h-rules">
    <h2 id="h-rules">Approval rules <span class="count" id="rules-count">0</span></h2>
    <div id="rules"><p class="empty">Loading…</p></div>
  </section>`;

export const LONG_LIVED_JS = String.raw`
  // ---- schedules ----------------------------------------------------------------------------
  function scheduleWhen(s) {
    if (s.cron) return "cron " + s.cron + " (" + (s.timezone || "UTC") + ")";
    if (s.every_seconds) return "every " + s.every_seconds + " s";
    return "at " + s.at;
  }
  function scheduleAction(s, action) {
    var path = "/v1/schedules/" + encodeURIComponent(s.schedule_id) + (action === "delete" ? "" : "/" + action);
    return api(path, action === "delete" ? { method: "DELETE", body: {} } : { method: "POST", body: {} })
      .then(refreshSchedules)
      .catch(function (e) { replace("schedules", el("p", { "class": "error-text", role: "alert", text: e.message })); });
  }
  function renderSchedules(rows) {
    byId("schedules-count").textContent = String(rows.length);
    if (rows.length === 0) return replace("schedules", el("p", { "class": "empty", text: "No schedules." }));
    var body = el("tbody");
    rows.forEach(function (s) {
      var actions = el("div", { "class": "actions" });
      if (s.state === "active") actions.appendChild(el("button", { type: "button", "aria-label": "Pause " + s.schedule_id, text: "Pause", onclick: function () { scheduleAction(s, "pause"); } }));
      if (s.state === "paused") actions.appendChild(el("button", { type: "button", "aria-label": "Resume " + s.schedule_id, text: "Resume", onclick: function () { scheduleAction(s, "resume"); } }));
      actions.appendChild(el("button", { type: "button", "class": "deny", "aria-label": "Delete " + s.schedule_id, text: "Delete", onclick: function () { scheduleAction(s, "delete"); } }));
      body.appendChild(el("tr", {},
        el("td", { "class": "mono", text: s.schedule_id }),
        el("td", {}, statusBadge(s.state)),
        el("td", { text: scheduleWhen(s) }),
        el("td", { text: s.agent_id || ("pool " + s.pool) }),
        el("td", { "class": "nowrap", text: s.next_run_at ? new Date(s.next_run_at).toLocaleString() : "—" }),
        el("td", { text: s.runs + " run · " + s.skipped_overlap + " skipped · " + s.missed + " missed · " + s.failures + " failed" }),
        el("td", { "class": "clip", title: s.text, text: clip(s.text, 40) }),
        el("td", {}, actions)));
    });
    replace("schedules", el("table", {},
      el("thead", {}, el("tr", {}, el("th", { scope: "col", text: "Schedule" }), el("th", { scope: "col", text: "State" }), el("th", { scope: "col", text: "When" }), el("th", { scope: "col", text: "Device" }), el("th", { scope: "col", text: "Next run" }), el("th", { scope: "col", text: "Runs" }), el("th", { scope: "col", text: "Text" }), el("th", { scope: "col", text: "Actions" }))),
      body));
  }
  function refreshSchedules() {
    return api("/v1/schedules").then(function (r) { renderSchedules(r.schedules); }).catch(function () {});
  }
  function createSchedule(event) {
    event.preventDefault();
    var when = byId("schedule-when").value.trim();
    var body = { agent_id: byId("schedule-agent").value.trim(), text: byId("schedule-text").value };
    if (/^\d+$/.test(when)) body.every_seconds = Number(when); else body.cron = when;
    api("/v1/schedules", { method: "POST", body: body })
      .then(function () { byId("schedule-text").value = ""; refreshSchedules(); })
      .catch(function (e) { replace("schedules", el("p", { "class": "error-text", role: "alert", text: e.message })); });
  }

  // ---- approval rules ---------------------------------------------------------------------------
  function renderRules(rules) {
    byId("rules-count").textContent = String(rules.length);
    if (rules.length === 0) return replace("rules", el("p", { "class": "empty", text: "No remembered decisions. Approve or deny a call with \"always\" to make one." }));
    var body = el("tbody");
    rules.forEach(function (r) {
      body.appendChild(el("tr", {},
        el("td", { "class": "mono", text: r.rule_id }),
        el("td", {}, statusBadge(r.effect === "allow" ? "success" : "error"), " ", r.effect),
        el("td", { text: r.agent_id || "any device" }),
        el("td", { "class": "mono", text: r.tool }),
        el("td", { "class": "mono", text: r.pattern || "—" }),
        el("td", { "class": "nowrap", text: r.expires_at ? new Date(r.expires_at).toLocaleString() : "never" }),
        el("td", { text: r.created_by }),
        el("td", {}, el("button", { type: "button", "class": "deny", "aria-label": "Revoke " + r.rule_id, text: "Revoke", onclick: function () {
          api("/v1/approval-rules/" + encodeURIComponent(r.rule_id), { method: "DELETE", body: {} }).then(refreshRules).catch(function () {});
        } }))));
    });
    replace("rules", el("table", {},
      el("thead", {}, el("tr", {}, el("th", { scope: "col", text: "Rule" }), el("th", { scope: "col", text: "Effect" }), el("th", { scope: "col", text: "Device" }), el("th", { scope: "col", text: "Tool" }), el("th", { scope: "col", text: "Pattern" }), el("th", { scope: "col", text: "Expires" }), el("th", { scope: "col", text: "Made by" }), el("th", { scope: "col", text: "Actions" }))),
      body));
  }
  function refreshRules() {
    return api("/v1/approval-rules").then(function (r) { renderRules(r.rules); }).catch(function () {});
  }
  document.addEventListener("DOMContentLoaded", function () {
    byId("schedule-form").addEventListener("submit", createSchedule);
    every(refreshSchedules, 5000);
    every(refreshRules, 5000);
  });
`;
