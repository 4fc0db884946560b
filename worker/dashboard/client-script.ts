import { CHARTS_JS } from "./client-charts.js";
import { CHAT_JS } from "./client-chat.js";
import { KEYS_JS } from "./client-keys.js";
import { LONG_LIVED_JS } from "./client-long-lived.js";
import { PANELS_JS } from "./client-panels.js";
import { TIMELINE_JS } from "./client-timeline.js";

/**
 * The dashboard's browser script, served at /dashboard.js (CSP: scripts from 'self' only, nothing inline).
 * Plain ES2017 with no build step; it renders every value with textContent, never as HTML.
 * It reads devices, conversations, pending calls, metrics and the audit log over the admin API (the
 * session cookie authenticates it), watches one conversation over its SSE stream, sends messages
 * to a device, a pool or that conversation, and draws the charts as inline SVG.
 *
 * The panels, the timeline, the message form, the charts, schedules and rules, and API keys are in
 * client-panels.ts, client-timeline.ts, client-chat.ts, client-charts.ts, client-long-lived.ts and
 * client-keys.ts, spliced in below; they use this closure's helpers and state.
 */
export const DASHBOARD_JS = String.raw`"use strict";
(function () {
  var SVG = "http://www.w3.org/2000/svg";
  var state = { selected: null, source: null, calls: {}, maxMs: 1, pending: {}, live: true };

  // ---- small helpers --------------------------------------------------------------------
  function el(tag, attrs) {
    var node = document.createElement(tag);
    for (var k in attrs || {}) {
      if (k === "text") node.textContent = attrs[k];
      else if (k === "onclick") node.addEventListener("click", attrs[k]);
      else if (attrs[k] !== undefined && attrs[k] !== null && attrs[k] !== false) node.setAttribute(k, attrs[k]);
    }
    for (var i = 2; i < arguments.length; i++) {
      var child = arguments[i];
      if (child === null || child === undefined || child === false) continue;
      node.appendChild(typeof child === "string" ? document.createTextNode(child) : child);
    }
    return node;
  }
  function svg(tag, attrs) {
    var node = document.createElementNS(SVG, tag);
    for (var k in attrs || {}) {
      if (k === "text") node.textContent = attrs[k];
      else node.setAttribute(k, String(attrs[k]));
    }
    return node;
  }
  function byId(id) { return document.getElementById(id); }
  function replace(id, node) {
    var host = byId(id);
    host.textContent = "";
    // Tables scroll sideways inside their panel instead of spilling out of it on narrow screens.
    host.appendChild(node.tagName === "TABLE" ? el("div", { "class": "table-wrap" }, node) : node);
  }
  function ago(ms) {
    if (!ms) return "never";
    var s = Math.max(0, Math.round((Date.now() - ms) / 1000));
    if (s < 60) return s + " s ago";
    if (s < 3600) return Math.round(s / 60) + " min ago";
    if (s < 86400) return Math.round(s / 3600) + " h ago";
    return Math.round(s / 86400) + " d ago";
  }
  function ms(v) { return v >= 10000 ? (v / 1000).toFixed(1) + " s" : Math.round(v) + " ms"; }
  function json(v) {
    if (typeof v === "string") return v;
    try { return JSON.stringify(v, null, 2); } catch (e) { return String(v); }
  }
  /** A tool outcome as a person reads it: the output, or the error and its kind. */
  function resultText(r) {
    if (!r || typeof r !== "object") return json(r);
    if (r.status === "error") return (r.error_type ? r.error_type + ": " : "") + (r.error || "") + (r.stderr ? "\n" + r.stderr : "");
    if (r.status === "blocked") return "blocked: " + (r.reason || "");
    if (typeof r.result === "string") return r.result + (r.stderr ? "\n[stderr] " + r.stderr : "");
    return json(r);
  }
  function clip(s, n) { s = String(s === null || s === undefined ? "" : s); return s.length > n ? s.slice(0, n - 1) + "…" : s; }
  function statusBadge(status) {
    var cls = { completed: "ok", success: "ok", online: "ok", failed: "bad", error: "bad", cancelled: "off", offline: "off", running: "run" }[status] || "warn";
    return el("span", { "class": "badge " + cls, text: status });
  }

  function api(path, opts) {
    opts = opts || {};
    var headers = { accept: "application/json" };
    if (opts.body !== undefined) {
      headers["content-type"] = "application/json";
      // The API refuses cookie-authenticated writes without this header (CSRF defence).
      headers["x-edgeloop-csrf"] = "1";
    }
    return fetch(path, { method: opts.method || "GET", headers: headers, credentials: "same-origin", body: opts.body === undefined ? undefined : JSON.stringify(opts.body) })
      .then(function (res) {
        if (res.status === 401) { location.reload(); throw new Error("session expired"); }
        return res.json().catch(function () { return {}; }).then(function (body) {
          if (!res.ok) throw new Error((body && (body.detail || body.title)) || ("HTTP " + res.status));
          return body;
        });
      });
  }

  function setHealth(ok, text) {
    var host = byId("health");
    host.textContent = "";
    host.appendChild(el("span", { "class": "dot" + (ok ? " on" : ""), "aria-hidden": "true" }));
    host.appendChild(document.createTextNode(text));
  }
${PANELS_JS}${TIMELINE_JS}${CHAT_JS}${CHARTS_JS}${LONG_LIVED_JS}${KEYS_JS}
  // ---- polling ------------------------------------------------------------------------------
  function refreshDevices() {
    return api("/v1/devices").then(function (r) {
      renderDevices(r.devices);
      chatTargets(r.devices, r.pools || [], false);
      var online = r.devices.filter(function (d) { return d.online; }).length;
      setHealth(true, "Worker reachable · " + online + " of " + r.devices.length + " devices online · updated " + new Date().toLocaleTimeString());
    }).catch(function (e) { setHealth(false, "Worker unreachable: " + e.message); });
  }
  function refreshConversations() {
    return api("/v1/conversations?limit=25").then(function (r) { renderConversations(r.conversations); }).catch(function () {});
  }
  function refreshApprovals() {
    return api("/v1/conversations?status=running&limit=50").then(function (r) {
      return Promise.all(r.conversations.map(function (c) {
        return api("/v1/conversations/" + encodeURIComponent(c.conversation_id)).then(function (v) {
          return (v.pending_tool_calls || []).filter(function (p) { return p.state === "awaiting_approval" || p.state === "awaiting_answer"; })
            .map(function (p) { return { conversation_id: c.conversation_id, agent_id: c.agent_id, call: p }; });
        }).catch(function () { return []; });
      }));
    }).then(function (lists) { renderApprovals([].concat.apply([], lists)); }).catch(function () {});
  }
  function refreshTools() {
    var since = new Date(Date.now() - 24 * 3600e3).toISOString();
    return Promise.all([api("/v1/metrics"), api("/v1/audit?limit=1000&since=" + encodeURIComponent(since))]).then(function (r) {
      renderToolTable(r[0]);
      latencyByTool(r[0]);
      overTime(r[1].entries || []);
    }).catch(function () {});
  }

  function every(fn, msInterval) {
    fn();
    setInterval(function () { if (!document.hidden) fn(); }, msInterval);
  }
  document.addEventListener("DOMContentLoaded", function () {
    every(refreshDevices, 5000);
    every(refreshConversations, 3000);
    every(refreshApprovals, 3000);
    every(refreshTools, 10000);
  });
})();
`;
