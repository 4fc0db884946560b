/** The dashboard script's live timeline of one conversation (SSE): a fragment that client-script.ts splices in. */
// biome-ignore lint/complexity/noUselessStringRaw: raw like the rest of the script, so a "\n" stays as written
export const TIMELINE_JS = String.raw`
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
    chatTargets(null, null, true);
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
`;
