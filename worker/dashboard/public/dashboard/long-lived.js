// @ts-check
/** The schedules panel (make, pause, resume, delete) and the approval rules panel (list, revoke). */
import { api, every } from "./api.js";
import { byId, el, field, replace, statusBadge, table } from "./dom.js";
import { clip } from "./format.js";

/** @param {any} s */
function scheduleWhen(s) {
  if (s.cron) return `cron ${s.cron} (${s.timezone || "UTC"})`;
  if (s.every_seconds) return `every ${s.every_seconds} s`;
  return `at ${s.at}`;
}

/** @param {unknown} e */
const showError = (e) =>
  replace("schedules", el("p", { class: "error-text", role: "alert", text: /** @type {Error} */ (e).message }));

/**
 * @param {any} s
 * @param {"pause" | "resume" | "delete"} action
 */
function scheduleAction(s, action) {
  const path = `/v1/schedules/${encodeURIComponent(s.schedule_id)}${action === "delete" ? "" : `/${action}`}`;
  return api(path, { method: action === "delete" ? "DELETE" : "POST", body: {} })
    .then(refreshSchedules)
    .catch(showError);
}

/** @param {any[]} rows */
function renderSchedules(rows) {
  byId("schedules-count").textContent = String(rows.length);
  if (rows.length === 0) return replace("schedules", el("p", { class: "empty", text: "No schedules." }));
  const body = el("tbody");
  for (const s of rows) {
    const actions = el("div", { class: "actions" });
    /** @param {string} label @param {"pause" | "resume" | "delete"} action @param {string | null} cls */
    const button = (label, action, cls) =>
      el("button", {
        type: "button",
        class: cls,
        "aria-label": `${label} ${s.schedule_id}`,
        text: label,
        onclick: () => scheduleAction(s, action),
      });
    if (s.state === "active") actions.appendChild(button("Pause", "pause", null));
    if (s.state === "paused") actions.appendChild(button("Resume", "resume", null));
    actions.appendChild(button("Delete", "delete", "deny"));
    const runs = `${s.runs} run · ${s.skipped_overlap} skipped · ${s.missed} missed · ${s.failures} failed`;
    body.appendChild(
      el(
        "tr",
        {},
        el("td", { class: "mono", text: s.schedule_id }),
        el("td", {}, statusBadge(s.state)),
        el("td", { text: scheduleWhen(s) }),
        el("td", { text: scheduleTarget(s) }),
        el("td", { class: "nowrap", text: s.next_run_at ? new Date(s.next_run_at).toLocaleString() : "—" }),
        el("td", { text: runs }),
        el("td", { class: "clip", title: s.text, text: clip(s.text, 40) }),
        el("td", {}, actions),
      ),
    );
  }
  replace("schedules", table(["Schedule", "State", "When", "Device", "Next run", "Runs", "Text", "Actions"], body));
}

function refreshSchedules() {
  return api("/v1/schedules")
    .then((r) => renderSchedules(r.schedules))
    .catch(() => {});
}

/**
 * Where a schedule's runs go: a device, a fleet's devices, or a pool (all of it in fleet mode).
 * @param {any} s
 */
function scheduleTarget(s) {
  if (s.agent_id) return s.agent_id;
  if (s.agent_ids) return s.agent_ids.join(", ");
  return `pool ${s.pool}${s.mode === "fleet" ? " (all at once)" : ""}`;
}

/** @param {Event} event */
function createSchedule(event) {
  event.preventDefault();
  const when = field("schedule-when").value.trim();
  // Several comma-separated devices make a fleet schedule (docs/fleet.md); the API checks them.
  const devices = field("schedule-agent")
    .value.split(",")
    .map((id) => id.trim())
    .filter(Boolean);
  /** @type {Record<string, string | number | string[]>} */
  const body = {
    ...(devices.length > 1 ? { agent_ids: devices } : { agent_id: devices[0] ?? "" }),
    text: field("schedule-text").value,
  };
  if (/^\d+$/.test(when)) body.every_seconds = Number(when);
  else body.cron = when;
  api("/v1/schedules", { method: "POST", body })
    .then(() => {
      field("schedule-text").value = "";
      refreshSchedules();
    })
    .catch(showError);
}

/** @param {any[]} rules */
function renderRules(rules) {
  byId("rules-count").textContent = String(rules.length);
  if (rules.length === 0)
    return replace(
      "rules",
      el("p", {
        class: "empty",
        text: 'No remembered decisions. Approve or deny a call with "always" to make one.',
      }),
    );
  const body = el("tbody");
  for (const r of rules) {
    const revoke = () =>
      api(`/v1/approval-rules/${encodeURIComponent(r.rule_id)}`, { method: "DELETE", body: {} })
        .then(refreshRules)
        .catch(() => {});
    body.appendChild(
      el(
        "tr",
        {},
        el("td", { class: "mono", text: r.rule_id }),
        el("td", {}, statusBadge(r.effect === "allow" ? "success" : "error"), " ", r.effect),
        el("td", { text: r.agent_id || "any device" }),
        el("td", { class: "mono", text: r.tool }),
        el("td", { class: "mono", text: r.pattern || "—" }),
        el("td", { class: "nowrap", text: r.expires_at ? new Date(r.expires_at).toLocaleString() : "never" }),
        el("td", { text: r.created_by }),
        el(
          "td",
          {},
          el("button", {
            type: "button",
            class: "deny",
            "aria-label": `Revoke ${r.rule_id}`,
            text: "Revoke",
            onclick: revoke,
          }),
        ),
      ),
    );
  }
  replace("rules", table(["Rule", "Effect", "Device", "Tool", "Pattern", "Expires", "Made by", "Actions"], body));
}

function refreshRules() {
  return api("/v1/approval-rules")
    .then((r) => renderRules(r.rules))
    .catch(() => {});
}

export function startLongLived() {
  byId("schedule-form").addEventListener("submit", createSchedule);
  every(refreshSchedules, 5000);
  every(refreshRules, 5000);
}
