/**
 * The dashboard script's message form: a fragment that client-script.ts splices in. The operator
 * writes to a device or a pool (a new conversation) or into the conversation the timeline shows,
 * through POST /v1/messages with the session cookie and the CSRF header (see api()), and the
 * timeline then follows that conversation live.
 */
// biome-ignore lint/complexity/noUselessStringRaw: raw like the rest of the script, so a "\n" stays as written
export const CHAT_JS = String.raw`
  // ---- send a message -------------------------------------------------------------------------
  var chat = { devices: [], pools: [] };
  /** followSelection: the timeline switched conversations, so the next message goes into that one. */
  function chatTargets(devices, pools, followSelection) {
    if (devices) chat.devices = devices;
    if (pools) chat.pools = pools;
    var target = byId("chat-target");
    var keep = target.value;
    target.textContent = "";
    if (state.selected) {
      var row = lastConversations.filter(function (r) { return r.conversation_id === state.selected; })[0];
      target.appendChild(el("option", { value: "conv:" + state.selected, text: "This conversation (" + clip(state.selected, 22) + (row ? ", " + row.agent_id : "") + ")" }));
    }
    var group = el("optgroup", { label: "New conversation with a device" });
    chat.devices.forEach(function (d) { group.appendChild(el("option", { value: "agent:" + d.agent_id, text: d.agent_id + (d.online ? "" : " (offline)") })); });
    if (chat.devices.length) target.appendChild(group);
    group = el("optgroup", { label: "New conversation with a pool" });
    chat.pools.forEach(function (p) { group.appendChild(el("option", { value: "pool:" + p.pool, text: p.pool + " (" + p.members.join(", ") + ")" })); });
    if (chat.pools.length) target.appendChild(group);
    var still = Array.prototype.some.call(target.options, function (o) { return o.value === keep; });
    if (!followSelection && still) target.value = keep;
    byId("chat-send").disabled = target.options.length === 0;
  }
  function agentOf(conversationId) {
    var row = lastConversations.filter(function (r) { return r.conversation_id === conversationId; })[0];
    if (row) return Promise.resolve(row.agent_id);
    return api("/v1/conversations/" + encodeURIComponent(conversationId)).then(function (v) { return v.agent_id; });
  }
  function chatStatus(text, isError) {
    var host = byId("chat-status");
    host.textContent = "";
    host.appendChild(el("span", { "class": isError ? "error-text" : "", role: isError ? "alert" : null, text: text }));
  }
  function sendChat(ev) {
    ev.preventDefault();
    var input = byId("chat-text"), button = byId("chat-send"), target = byId("chat-target").value;
    var text = input.value.trim();
    if (!text) { input.focus(); return; }
    var colon = target.indexOf(":"), kind = target.slice(0, colon), id = target.slice(colon + 1);
    var body = { text: text };
    var ready;
    if (kind === "conv") ready = agentOf(id).then(function (agent) { body.conversation_id = id; body.agent_id = agent; });
    else { body[kind === "pool" ? "pool" : "agent_id"] = id; ready = Promise.resolve(); }
    button.disabled = true;
    chatStatus("Sending…");
    ready.then(function () { return api("/v1/messages", { method: "POST", body: body }); })
      .then(function (r) {
        input.value = "";
        chatStatus("Sent to " + r.agent_id + ".");
        select(r.conversation_id);
        refreshConversations();
      })
      .catch(function (e) { chatStatus("Not sent: " + e.message, true); })
      .then(function () { button.disabled = false; });
  }
  document.addEventListener("DOMContentLoaded", function () {
    byId("chat").addEventListener("submit", sendChat);
    byId("chat-text").addEventListener("keydown", function (e) {
      // Ctrl/Cmd+Enter sends; Enter alone is a new line, as in most chat boxes with a multi-line field.
      if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) byId("chat").requestSubmit();
    });
  });
`;
