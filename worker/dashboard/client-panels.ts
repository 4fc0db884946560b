/** The dashboard script's devices, conversations and approvals panels: a fragment that client-script.ts splices in. */
// biome-ignore lint/complexity/noUselessStringRaw: raw like the rest of the script, so a "\n" stays as written
export const PANELS_JS = String.raw`
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
  function decide(conversationId, callId, approve, reasonInput, host, always) {
    var buttons = host.querySelectorAll("button");
    buttons.forEach(function (b) { b.disabled = true; });
    var body = { approve: approve };
    if (always) body.scope = approve ? "always" : "deny_always";
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
    // Remembered for this tool on this device (an approval rule, listed below).
    host.appendChild(el("button", { type: "button", "data-approve-always": call.id, "aria-label": "Always approve " + call.name + " on this device", text: "Always", onclick: function () { decide(conversationId, call.id, true, reason, host, true); } }));
    host.appendChild(el("button", { type: "button", "data-deny-always": call.id, "aria-label": "Always deny " + call.name + " on this device", text: "Never", onclick: function () { decide(conversationId, call.id, false, reason, host, true); } }));
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
`;
