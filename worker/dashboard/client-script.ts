/**
 * The dashboard's browser script, served at /dashboard.js (CSP: scripts from 'self' only, nothing inline).
 * Plain ES2017 with no build step; it renders every value with textContent, never as HTML.
 * It reads devices, conversations, pending calls, metrics and the audit log over the admin API (the
 * session cookie authenticates it), watches one conversation over its SSE stream, and draws the
 * charts as inline SVG.
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

  // ---- devices --------------------------------------------------------------------------
  function renderDevices(devices) {
    byId("devices-count").textContent = String(devices.length);
    if (devices.length === 0) return replace("devices", el("p", { "class": "empty", text: "No device has connected yet." }));
    var body = el("tbody");
    devices.forEach(function (d) {
      var chips = el("div", { "class": "chips" });
      (d.tools || []).forEach(function (t) { chips.appendChild(el("span", { "class": "chip", text: t })); });
      body.appendChild(el("tr", {},
        el("td", { "class": "nowrap" }, el("span", { "class": "dot" + (d.online ? " on" : ""), "aria-hidden": "true" }), " ", el("strong", { text: d.agent_id })),
        el("td", {}, statusBadge(d.online ? "online" : "offline")),
        el("td", { "class": "mono", text: d.version || "—" }),
        el("td", { "class": "nowrap", text: ago(d.last_seen) }),
        el("td", {}, chips)));
    });
    replace("devices", el("table", {},
      el("thead", {}, el("tr", {}, el("th", { scope: "col", text: "Device" }), el("th", { scope: "col", text: "State" }), el("th", { scope: "col", text: "Version" }), el("th", { scope: "col", text: "Last seen" }), el("th", { scope: "col", text: "Tools" }))),
      body));
  }

  // ---- conversations ----------------------------------------------------------------------
  var lastConversations = [];
  function renderConversations(rows) {
    lastConversations = rows;
    byId("conversations-count").textContent = String(rows.length);
    if (rows.length === 0) return replace("conversations", el("p", { "class": "empty", text: "No conversations yet." }));
    var body = el("tbody");
    rows.forEach(function (r) {
      var open = el("button", { type: "button", "class": "link", "data-conversation": r.conversation_id, "aria-label": "Watch conversation " + r.conversation_id, text: clip(r.conversation_id, 22), onclick: function () { select(r.conversation_id); } });
      body.appendChild(el("tr", { "class": r.conversation_id === state.selected ? "selected" : null },
        el("td", {}, open),
        el("td", { text: r.agent_id }),
        el("td", {}, statusBadge(r.status)),
        el("td", { text: ago(r.updated_at) }),
        el("td", { "class": "clip", title: r.last_text || "", text: r.last_text || "" })));
    });
    replace("conversations", el("table", {},
      el("thead", {}, el("tr", {}, el("th", { scope: "col", text: "Conversation" }), el("th", { scope: "col", text: "Device" }), el("th", { scope: "col", text: "Status" }), el("th", { scope: "col", text: "Updated" }), el("th", { scope: "col", text: "Last text" }))),
      body));
    if (!state.selected && rows.length > 0) select(rows[0].conversation_id);
  }

  // ---- pending approvals and questions ------------------------------------------------------
  function decide(conversationId, callId, approve, reasonInput, host) {
    var buttons = host.querySelectorAll("button");
    buttons.forEach(function (b) { b.disabled = true; });
    var body = { approve: approve };
    if (reasonInput && reasonInput.value) body.reason = reasonInput.value;
    return api("/v1/conversations/" + encodeURIComponent(conversationId) + "/approvals/" + encodeURIComponent(callId), { method: "POST", body: body })
      .then(function () { host.appendChild(el("p", { role: "status", text: approve ? "Approved." : "Denied." })); refreshApprovals(); })
      .catch(function (e) { buttons.forEach(function (b) { b.disabled = false; }); host.appendChild(el("p", { "class": "error-text", role: "alert", text: e.message })); });
  }
  function answer(conversationId, callId, input, host) {
    if (!input.value) { input.focus(); return; }
    api("/v1/conversations/" + encodeURIComponent(conversationId) + "/answers/" + encodeURIComponent(callId), { method: "POST", body: { answer: input.value } })
      .then(function () { host.appendChild(el("p", { role: "status", text: "Answered." })); refreshApprovals(); })
      .catch(function (e) { host.appendChild(el("p", { "class": "error-text", role: "alert", text: e.message })); });
  }
  function approvalControls(conversationId, call) {
    var host = el("div", { "class": "actions" });
    var id = "reason-" + call.id;
    if (call.state === "awaiting_answer") {
      var input = el("input", { id: id, type: "text", "aria-label": "Answer for " + call.name });
      host.appendChild(input);
      host.appendChild(el("button", { type: "button", "class": "primary", text: "Answer", onclick: function () { answer(conversationId, call.id, input, host); } }));
      return host;
    }
    var reason = el("input", { id: id, type: "text", placeholder: "reason (optional)", "aria-label": "Reason for " + call.name + " " + call.id });
    host.appendChild(el("button", { type: "button", "class": "approve", "data-approve": call.id, "aria-label": "Approve " + call.name + " " + call.id, text: "Approve", onclick: function () { decide(conversationId, call.id, true, reason, host); } }));
    host.appendChild(el("button", { type: "button", "class": "deny", "data-deny": call.id, "aria-label": "Deny " + call.name + " " + call.id, text: "Deny", onclick: function () { decide(conversationId, call.id, false, reason, host); } }));
    host.appendChild(reason);
    return host;
  }
  function renderApprovals(items) {
    byId("approvals-count").textContent = String(items.length);
    var key = items.map(function (i) { return i.conversation_id + "/" + i.call.id; }).join(",");
    if (key === state.approvalsKey) return; // keep focus and typed reasons while nothing changed
    state.approvalsKey = key;
    if (items.length === 0) return replace("approvals", el("p", { "class": "empty", text: "Nothing is waiting." }));
    var list = el("div");
    items.forEach(function (i) {
      var question = i.call.state === "awaiting_answer";
      list.appendChild(el("article", { "class": "approval", "aria-label": (question ? "Question from " : "Approval for ") + i.call.name },
        el("p", { "class": "what" }, el("strong", { text: i.call.name }), " ", el("span", { "class": "mono", text: i.call.id }), " in ",
          el("button", { type: "button", "class": "link", text: clip(i.conversation_id, 22), onclick: function () { select(i.conversation_id); } }),
          " on ", i.agent_id),
        el("pre", { text: question && i.call.args && i.call.args.question ? i.call.args.question : json(i.call.args) }),
        approvalControls(i.conversation_id, i.call)));
    });
    replace("approvals", list);
  }

  // ---- the live timeline --------------------------------------------------------------------
  function select(id) {
    if (state.selected === id) return;
    state.selected = id;
    if (state.source) state.source.close();
    state.calls = {};
    state.maxMs = 1;
    var head = byId("timeline-head");
    head.textContent = "";
    head.appendChild(el("span", { "class": "mono", text: id }));
    head.appendChild(el("span", { id: "timeline-status" }, statusBadge("connecting")));
    byId("timeline").textContent = "";
    renderConversations(lastConversations);
    var src = new EventSource("/v1/conversations/" + encodeURIComponent(id) + "/events");
    state.source = src;
    ["message_start", "message_delta", "message_end", "tool_execution_start", "tool_execution_update", "tool_execution_end", "approval_required", "question", "conversation_end"].forEach(function (type) {
      src.addEventListener(type, function (ev) {
        if (state.source !== src) return;
        try { onEvent(JSON.parse(ev.data)); } catch (e) { /* a malformed event must not stop the stream */ }
      });
    });
    src.onopen = function () { setTimelineStatus("live"); };
    src.onerror = function () { if (state.source === src) setTimelineStatus("reconnecting"); };
  }
  function setTimelineStatus(text) {
    var host = byId("timeline-status");
    if (!host) return;
    host.textContent = "";
    host.appendChild(statusBadge(text));
  }
  function add(item) { byId("timeline").appendChild(item); return item; }
  function stamp(at) { return new Date(at).toLocaleTimeString(); }
  function rescaleBars() {
    for (var id in state.calls) {
      var c = state.calls[id];
      if (c.duration !== undefined) { c.bar.classList.remove("pending"); c.bar.style.width = Math.max(1, (c.duration / state.maxMs) * 100) + "%"; }
    }
  }
  function onEvent(e) {
    var c;
    switch (e.type) {
      case "message_start":
        state.llm = null;
        add(el("li", { "class": "user" }, el("span", { "class": "kind", text: "message" }), el("span", { "class": "meta", text: stamp(e.at) }), el("p", { "class": "text", text: e.text })));
        setTimelineStatus("running");
        break;
      case "message_delta":
        if (!state.llm) {
          state.llmText = el("p", { "class": "text" });
          state.llm = add(el("li", { "class": "llm" }, el("span", { "class": "kind", text: "model" }), el("span", { "class": "meta", text: "streaming…" }), state.llmText));
        }
        state.llmText.textContent += e.delta;
        break;
      case "message_end":
        var meta = "turn " + e.iteration + (e.tool_calls ? " · " + e.tool_calls + " tool call" + (e.tool_calls > 1 ? "s" : "") : "");
        if (state.llm) {
          state.llm.querySelector(".meta").textContent = meta;
          if (e.content) state.llmText.textContent = e.content;
        } else {
          add(el("li", { "class": "llm" }, el("span", { "class": "kind", text: "model" }), el("span", { "class": "meta", text: meta }), e.content ? el("p", { "class": "text", text: e.content }) : null));
        }
        state.llm = null;
        break;
      case "tool_execution_start":
        c = { start: e.at, bar: el("span", { "class": "pending" }), meta: el("span", { "class": "meta", text: "running…" }) };
        c.item = add(el("li", { "class": "tool", "data-tool-call": e.toolCallId },
          el("span", { "class": "kind", text: "tool" }), el("strong", { "class": "mono", text: e.toolName }), c.meta,
          el("pre", { "aria-label": "arguments", text: json(e.args) }),
          el("div", { "class": "bar", "aria-hidden": "true" }, c.bar)));
        state.calls[e.toolCallId] = c;
        break;
      case "tool_execution_update":
        c = state.calls[e.toolCallId];
        if (c) c.meta.textContent = "running… " + clip(json(e.partial), 80);
        break;
      case "tool_execution_end":
        c = state.calls[e.toolCallId];
        if (!c) {
          c = { start: e.at, bar: el("span"), meta: el("span", { "class": "meta" }) };
          c.item = add(el("li", { "class": "tool" }, el("span", { "class": "kind", text: "tool" }), el("strong", { "class": "mono", text: e.toolName }), c.meta, el("div", { "class": "bar", "aria-hidden": "true" }, c.bar)));
          state.calls[e.toolCallId] = c;
        }
        c.duration = Math.max(0, e.at - c.start);
        state.maxMs = Math.max(state.maxMs, c.duration);
        c.item.classList.add(e.isError ? "error" : "done");
        c.item.classList.remove("wait");
        c.meta.textContent = (e.isError ? "failed" : "done") + " · " + ms(c.duration);
        c.item.appendChild(el("pre", { "aria-label": "result", text: clip(resultText(e.result), 4000) }));
        rescaleBars();
        break;
      case "approval_required":
        add(el("li", { "class": "wait" }, el("span", { "class": "kind", text: "approval" }), el("strong", { "class": "mono", text: e.toolName }), el("span", { "class": "meta", text: "waiting for a person" }),
          el("pre", { text: json(e.args) }), approvalControls(state.selected, { id: e.toolCallId, name: e.toolName, state: "awaiting_approval" })));
        refreshApprovals();
        break;
      case "question":
        add(el("li", { "class": "wait" }, el("span", { "class": "kind", text: "question" }), el("p", { "class": "text", text: e.question }),
          approvalControls(state.selected, { id: e.toolCallId, name: "question", state: "awaiting_answer" })));
        refreshApprovals();
        break;
      case "conversation_end":
        add(el("li", { "class": e.status === "completed" ? "reply" : "error" }, el("span", { "class": "kind", text: "reply" }), statusBadge(e.status), el("span", { "class": "meta", text: e.stop_reason + " · " + stamp(e.at) }),
          el("p", { "class": "text", text: e.reply || "(no reply)" })));
        setTimelineStatus(e.status);
        refreshApprovals();
        break;
    }
  }

  // ---- tool metrics and charts ----------------------------------------------------------------
  function renderToolTable(report) {
    var tools = (report.tools && report.tools.overall) || [];
    if (tools.length === 0) return replace("tool-table", el("p", { "class": "empty", text: "No tool calls yet." }));
    var body = el("tbody");
    tools.forEach(function (t) {
      var rate = t.total_calls ? Math.round((t.success_count / t.total_calls) * 1000) / 10 : 0;
      body.appendChild(el("tr", {},
        el("td", { "class": "mono", text: t.tool }),
        el("td", { "class": "num", text: String(t.total_calls) }),
        el("td", { "class": "num" }, el("span", { "class": "badge " + (rate >= 99.5 ? "ok" : rate >= 80 ? "warn" : "bad"), text: rate + "%" })),
        el("td", { "class": "num", text: ms(t.latency_ms.p50) }),
        el("td", { "class": "num", text: ms(t.latency_ms.p95) }),
        el("td", { "class": "num", text: String(t.error_count) }),
        el("td", { "class": "clip", title: t.last_error || "", text: t.last_error ? clip(t.last_error, 80) : "—" })));
    });
    replace("tool-table", el("table", {},
      el("thead", {}, el("tr", {}, el("th", { scope: "col", text: "Tool" }), el("th", { scope: "col", "class": "num", text: "Calls" }), el("th", { scope: "col", "class": "num", text: "Success" }), el("th", { scope: "col", "class": "num", text: "p50" }), el("th", { scope: "col", "class": "num", text: "p95" }), el("th", { scope: "col", "class": "num", text: "Errors" }), el("th", { scope: "col", text: "Last error" }))),
      body));
  }

  function chartFrame(labelledBy, summary, width, height) {
    var root = svg("svg", { "class": "chart", viewBox: "0 0 " + width + " " + height, role: "img", "aria-labelledby": labelledBy });
    root.appendChild(svg("desc", { text: summary }));
    return root;
  }
  function niceMax(v) {
    if (v <= 0) return 1;
    var p = Math.pow(10, Math.floor(Math.log10(v)));
    var n = v / p;
    return (n <= 1 ? 1 : n <= 2 ? 2 : n <= 5 ? 5 : 10) * p;
  }
  function axis(root, left, top, w, h, max, fmt) {
    for (var i = 0; i <= 4; i++) {
      var y = top + h - (h * i) / 4;
      root.appendChild(svg("line", { "class": "grid", x1: left, x2: left + w, y1: y, y2: y }));
      root.appendChild(svg("text", { x: left - 4, y: y + 3, "text-anchor": "end", text: fmt((max * i) / 4) }));
    }
  }
  function emptyChart(id, text) { replace(id, el("p", { "class": "empty", text: text })); }

  function latencyByTool(report) {
    var tools = ((report.tools && report.tools.overall) || []).slice(0, 12);
    if (tools.length === 0) return emptyChart("chart-latency-tool", "No tool calls yet.");
    var W = 420, rowH = 22, left = 96, top = 8, w = W - left - 50, H = top + tools.length * rowH + 20;
    var max = niceMax(Math.max.apply(null, tools.map(function (t) { return t.latency_ms.p95; })));
    var root = chartFrame("cap-latency-tool", tools.map(function (t) { return t.tool + ": p50 " + t.latency_ms.p50 + " ms, p95 " + t.latency_ms.p95 + " ms"; }).join("; "), W, H);
    tools.forEach(function (t, i) {
      var y = top + i * rowH;
      root.appendChild(svg("text", { x: left - 6, y: y + 13, "text-anchor": "end", text: clip(t.tool, 16) }));
      root.appendChild(svg("rect", { x: left, y: y + 3, width: Math.max(1, (t.latency_ms.p95 / max) * w), height: 14, rx: 2, fill: "#b9d0f2" }));
      root.appendChild(svg("rect", { x: left, y: y + 3, width: Math.max(1, (t.latency_ms.p50 / max) * w), height: 14, rx: 2, fill: "#1f5fbf" }));
      root.appendChild(svg("text", { x: left + Math.max(1, (t.latency_ms.p95 / max) * w) + 4, y: y + 13, text: ms(t.latency_ms.p95) }));
    });
    root.appendChild(svg("text", { x: left, y: H - 4, text: "dark: p50 · light: p95 · axis to " + ms(max) }));
    replace("chart-latency-tool", root);
  }

  /** Audit rows into at most 24 equal time buckets, the bucket size picked from a short list. */
  function buckets(entries) {
    var times = entries.map(function (e) { return Date.parse(e.timestamp); });
    var now = Date.now(), first = Math.min.apply(null, times);
    var sizes = [10e3, 30e3, 60e3, 300e3, 900e3, 3600e3, 10800e3];
    var span = function (sz) { return Math.ceil(now / sz) - Math.floor(first / sz); };
    var size = sizes[sizes.length - 1];
    for (var i = 0; i < sizes.length; i++) if (span(sizes[i]) <= 24) { size = sizes[i]; break; }
    var end = Math.ceil(now / size) * size, count = Math.max(6, Math.min(24, span(size)));
    var start = end - count * size, out = [];
    for (var b = 0; b < count; b++) out.push({ t: start + b * size, n: 0, ok: 0, sum: 0, max: 0 });
    entries.forEach(function (e, i) {
      var k = Math.floor((times[i] - start) / size);
      if (k < 0 || k >= count) return;
      var bk = out[k];
      bk.n++; if (e.result === "success") bk.ok++;
      var ms2 = e.elapsed_ms || 0; bk.sum += ms2; bk.max = Math.max(bk.max, ms2);
    });
    return { list: out, size: size };
  }
  function timeLabel(t, size) {
    var d = new Date(t);
    var hh = String(d.getHours()).padStart(2, "0"), mm = String(d.getMinutes()).padStart(2, "0"), ss = String(d.getSeconds()).padStart(2, "0");
    return size < 60e3 ? hh + ":" + mm + ":" + ss : hh + ":" + mm;
  }
  function overTime(entries) {
    if (entries.length === 0) { emptyChart("chart-latency-time", "No tool calls in the audit log yet."); emptyChart("chart-success-time", "No tool calls in the audit log yet."); return; }
    var B = buckets(entries), list = B.list;
    var W = 420, H = 176, left = 46, top = 14, w = W - left - 8, h = H - top - 34, bw = w / list.length;
    // latency: average bar, max tick
    var max = niceMax(Math.max.apply(null, list.map(function (b) { return b.max; })));
    var lat = chartFrame("cap-latency-time", "Average and maximum tool latency per " + ms(B.size) + " bucket", W, H);
    axis(lat, left, top, w, h, max, function (v) { return v >= 1000 ? (v / 1000) + " s" : Math.round(v) + " ms"; });
    list.forEach(function (b, i) {
      var x = left + i * bw;
      if (b.n) {
        var avg = b.sum / b.n;
        var ah = (avg / max) * h, mh = (b.max / max) * h;
        lat.appendChild(svg("rect", { x: x + bw * 0.18, y: top + h - ah, width: bw * 0.64, height: Math.max(1, ah), rx: 1.5, fill: "#1f5fbf" }));
        lat.appendChild(svg("line", { x1: x + bw * 0.12, x2: x + bw * 0.88, y1: top + h - mh, y2: top + h - mh, stroke: "#b42318", "stroke-width": 2 }));
      }
      if (i % Math.ceil(list.length / 6) === 0) lat.appendChild(svg("text", { x: x + bw / 2, y: H - 18, "text-anchor": "middle", text: timeLabel(b.t, B.size) }));
    });
    lat.appendChild(svg("text", { x: left, y: H - 3, text: "bar: average · red tick: max · " + ms(B.size) + " buckets" }));
    replace("chart-latency-time", lat);
    // success rate
    var ok = chartFrame("cap-success-time", list.filter(function (b) { return b.n; }).map(function (b) { return timeLabel(b.t, B.size) + ": " + b.ok + " of " + b.n + " succeeded"; }).join("; "), W, H);
    axis(ok, left, top, w, h, 100, function (v) { return Math.round(v) + "%"; });
    list.forEach(function (b, i) {
      var x = left + i * bw;
      if (b.n) {
        var rate = b.ok / b.n, rh = rate * h;
        ok.appendChild(svg("rect", { x: x + bw * 0.18, y: top + h - rh, width: bw * 0.64, height: Math.max(1, rh), rx: 1.5, fill: rate >= 0.995 ? "#17794a" : rate >= 0.8 ? "#c98a00" : "#b42318" }));
        ok.appendChild(svg("text", { x: x + bw / 2, y: top + h - rh - 3, "text-anchor": "middle", text: String(b.n) }));
      }
      if (i % Math.ceil(list.length / 6) === 0) ok.appendChild(svg("text", { x: x + bw / 2, y: H - 18, "text-anchor": "middle", text: timeLabel(b.t, B.size) }));
    });
    ok.appendChild(svg("text", { x: left, y: H - 3, text: "height: share of calls that succeeded · label: calls" }));
    replace("chart-success-time", ok);
  }

  // ---- polling ------------------------------------------------------------------------------
  function refreshDevices() {
    return api("/v1/devices").then(function (r) {
      renderDevices(r.devices);
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
