// @ts-check
/** The live timeline of one conversation, from its event stream (SSE). */
import { chatTargets } from "./chat.js";
import { byId, el, statusBadge } from "./dom.js";
import { clip, json, ms, resultText } from "./format.js";
import { approvalControls, renderConversations } from "./panels.js";
import { actions, state } from "./state.js";

const EVENT_TYPES = [
  "message_start",
  "message_delta",
  "message_end",
  "tool_execution_start",
  "tool_execution_update",
  "tool_execution_end",
  "tool_late_result",
  "approval_required",
  "question",
  "conversation_end",
];

/**
 * Follow a conversation: clear the timeline and open its stream.
 * @param {string} id
 */
export function select(id) {
  if (state.selected === id) return;
  state.selected = id;
  if (state.source) state.source.close();
  state.calls = {};
  state.maxMs = 1;
  const head = byId("timeline-head");
  head.textContent = "";
  head.appendChild(el("span", { class: "mono", text: id }));
  head.appendChild(el("span", { id: "timeline-status" }, statusBadge("connecting")));
  byId("timeline").textContent = "";
  renderConversations(state.conversations);
  chatTargets(null, null, true);
  const src = new EventSource(`/v1/conversations/${encodeURIComponent(id)}/events`);
  state.source = src;
  for (const type of EVENT_TYPES) {
    src.addEventListener(type, (ev) => {
      if (state.source !== src) return;
      try {
        onEvent(JSON.parse(/** @type {MessageEvent} */ (ev).data));
      } catch {
        /* a malformed event must not stop the stream */
      }
    });
  }
  src.onopen = () => setTimelineStatus("live");
  src.onerror = () => {
    if (state.source === src) setTimelineStatus("reconnecting");
  };
}

/** @param {string} text */
function setTimelineStatus(text) {
  const host = document.getElementById("timeline-status");
  if (!host) return;
  host.textContent = "";
  host.appendChild(statusBadge(text));
}

/** @param {HTMLElement} item */
function add(item) {
  byId("timeline").appendChild(item);
  return item;
}

/** @param {number} at */
const stamp = (at) => new Date(at).toLocaleTimeString();

function rescaleBars() {
  for (const c of Object.values(state.calls)) {
    if (c.duration !== undefined) {
      c.bar.classList.remove("pending");
      c.bar.style.width = `${Math.max(1, (c.duration / state.maxMs) * 100)}%`;
    }
  }
}

/**
 * One event of the stream, as a line of the timeline.
 * @param {any} e
 */
function onEvent(e) {
  switch (e.type) {
    case "message_start":
      state.llm = null;
      add(
        el(
          "li",
          { class: "user" },
          el("span", { class: "kind", text: "message" }),
          el("span", { class: "meta", text: stamp(e.at) }),
          el("p", { class: "text", text: e.text }),
        ),
      );
      setTimelineStatus("running");
      break;
    case "message_delta":
      if (!state.llm || !state.llmText) {
        state.llmText = el("p", { class: "text" });
        state.llm = add(
          el(
            "li",
            { class: "llm" },
            el("span", { class: "kind", text: "model" }),
            el("span", { class: "meta", text: "streaming…" }),
            state.llmText,
          ),
        );
      }
      state.llmText.textContent += e.delta;
      break;
    case "message_end": {
      const calls = e.tool_calls ? ` · ${e.tool_calls} tool call${e.tool_calls > 1 ? "s" : ""}` : "";
      const meta = `turn ${e.iteration}${calls}`;
      if (state.llm && state.llmText) {
        const metaNode = state.llm.querySelector(".meta");
        if (metaNode) metaNode.textContent = meta;
        if (e.content) state.llmText.textContent = e.content;
      } else {
        add(
          el(
            "li",
            { class: "llm" },
            el("span", { class: "kind", text: "model" }),
            el("span", { class: "meta", text: meta }),
            e.content ? el("p", { class: "text", text: e.content }) : null,
          ),
        );
      }
      state.llm = null;
      break;
    }
    case "tool_execution_start": {
      /** @type {import("./state.js").TimelineCall} */
      const c = {
        start: e.at,
        bar: el("span", { class: "pending" }),
        meta: el("span", { class: "meta", text: "running…" }),
      };
      c.item = add(
        el(
          "li",
          { class: "tool", "data-tool-call": e.toolCallId },
          el("span", { class: "kind", text: "tool" }),
          el("strong", { class: "mono", text: e.toolName }),
          c.meta,
          el("pre", { "aria-label": "arguments", text: json(e.args) }),
          el("div", { class: "bar", "aria-hidden": "true" }, c.bar),
        ),
      );
      state.calls[e.toolCallId] = c;
      break;
    }
    case "tool_execution_update": {
      const c = state.calls[e.toolCallId];
      if (c) c.meta.textContent = `running… ${clip(json(e.partial), 80)}`;
      break;
    }
    case "tool_execution_end": {
      let c = state.calls[e.toolCallId];
      if (!c) {
        c = { start: e.at, bar: el("span"), meta: el("span", { class: "meta" }) };
        c.item = add(
          el(
            "li",
            { class: "tool" },
            el("span", { class: "kind", text: "tool" }),
            el("strong", { class: "mono", text: e.toolName }),
            c.meta,
            el("div", { class: "bar", "aria-hidden": "true" }, c.bar),
          ),
        );
        state.calls[e.toolCallId] = c;
      }
      c.duration = Math.max(0, e.at - c.start);
      state.maxMs = Math.max(state.maxMs, c.duration);
      const item = /** @type {HTMLElement} */ (c.item);
      item.classList.add(e.isError ? "error" : "done");
      item.classList.remove("wait");
      c.meta.textContent = `${e.isError ? "failed" : "done"} · ${ms(c.duration)}`;
      item.appendChild(el("pre", { "aria-label": "result", text: clip(resultText(e.result), 4000) }));
      rescaleBars();
      break;
    }
    case "tool_late_result":
      add(
        el(
          "li",
          { class: e.isError ? "tool error" : "tool done" },
          el("span", { class: "kind", text: "late result" }),
          el("strong", { class: "mono", text: e.toolName }),
          el("span", { class: "meta", text: "arrived after the call had ended" }),
          el("pre", { "aria-label": "late result", text: clip(resultText(e.result), 4000) }),
        ),
      );
      break;
    case "approval_required":
      add(
        el(
          "li",
          { class: "wait" },
          el("span", { class: "kind", text: "approval" }),
          el("strong", { class: "mono", text: e.toolName }),
          el("span", { class: "meta", text: "waiting for a person" }),
          el("pre", { text: json(e.args) }),
          approvalControls(state.selected ?? "", { id: e.toolCallId, name: e.toolName, state: "awaiting_approval" }),
        ),
      );
      actions.refreshApprovals();
      break;
    case "question":
      add(
        el(
          "li",
          { class: "wait" },
          el("span", { class: "kind", text: "question" }),
          el("p", { class: "text", text: e.question }),
          approvalControls(state.selected ?? "", { id: e.toolCallId, name: "question", state: "awaiting_answer" }),
        ),
      );
      actions.refreshApprovals();
      break;
    case "conversation_end":
      add(
        el(
          "li",
          { class: e.status === "completed" ? "reply" : "error" },
          el("span", { class: "kind", text: "reply" }),
          statusBadge(e.status),
          el("span", { class: "meta", text: `${e.stop_reason} · ${stamp(e.at)}` }),
          el("p", { class: "text", text: e.reply || "(no reply)" }),
        ),
      );
      setTimelineStatus(e.status);
      actions.refreshApprovals();
      break;
  }
}
