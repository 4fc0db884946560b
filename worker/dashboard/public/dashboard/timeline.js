// @ts-check
/** The live timeline of one conversation, from its event stream (SSE). */
import { api } from "./api.js";
import { chatTargets } from "./chat.js";
import { byId, el, statusBadge } from "./dom.js";
import { clip, decidedText, json, ms, ranText, resultText } from "./format.js";
import { approvalControls, renderConversations } from "./panels.js";
import { actions, state } from "./state.js";
import { thumbnails } from "./thumbnails.js";

const EVENT_TYPES = [
  "message_start",
  "message_delta",
  "message_end",
  "tool_execution_start",
  "tool_execution_update",
  "tool_execution_end",
  "tool_late_result",
  "approval_required",
  "approval_decided",
  "question",
  "conversation_end",
];

/**
 * Follow a conversation: clear the timeline and open its stream. The message form's target follows
 * it, unless the page opened it by itself (`auto`: the newest, at load) after the person had picked
 * a target: their choice stands.
 * @param {string} id
 * @param {boolean} [auto]
 */
export function select(id, auto = false) {
  if (state.selected === id) return;
  state.selected = id;
  if (state.source) state.source.close();
  state.calls = {};
  state.maxMs = 1;
  const head = byId("timeline-head");
  head.textContent = "";
  head.appendChild(el("span", { class: "mono", text: id }));
  head.appendChild(el("span", { id: "timeline-status" }, statusBadge("connecting")));
  head.appendChild(cancelButton(id));
  // The latest run's trace id: search it in Workers Observability (docs/tracing.md).
  api(`/v1/conversations/${encodeURIComponent(id)}?limit=1`)
    .then(
      (v) =>
        v.trace_id &&
        state.selected === id &&
        head.appendChild(el("span", { class: "mono", text: `trace ${v.trace_id}` })),
    )
    .catch(() => {});
  byId("timeline").textContent = "";
  renderConversations(state.conversations);
  const follow = !(auto && state.targetChosen);
  if (follow) state.targetChosen = false;
  chatTargets(null, null, follow);
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

/**
 * Stops the run under way (`POST /v1/conversations/:id/cancel`); enabled only while one runs.
 * @param {string} id
 */
function cancelButton(id) {
  const button = /** @type {HTMLButtonElement} */ (
    el("button", { type: "button", class: "deny", id: "timeline-cancel", disabled: "", text: "Cancel run" })
  );
  button.addEventListener("click", async () => {
    button.disabled = true;
    try {
      await api(`/v1/conversations/${encodeURIComponent(id)}/cancel`, { method: "POST", body: {} });
    } catch (e) {
      button.disabled = false;
      button.title = /** @type {Error} */ (e).message;
    }
  });
  return button;
}

/** @param {string} text */
function setTimelineStatus(text) {
  const host = document.getElementById("timeline-status");
  if (!host) return;
  host.textContent = "";
  host.appendChild(statusBadge(text));
  const cancel = /** @type {HTMLButtonElement | null} */ (document.getElementById("timeline-cancel"));
  if (cancel && text !== "live" && text !== "reconnecting") cancel.disabled = text !== "running";
}

/** @param {HTMLElement} item */
function add(item) {
  byId("timeline").appendChild(item);
  return item;
}

/**
 * @param {HTMLElement | undefined} next the card it goes before, when there is one
 * @param {HTMLElement} item
 */
function addBefore(next, item) {
  if (!next) return add(item);
  next.before(item);
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
 * A call's approval question was answered, here or anywhere else: its card says by whom and when
 * and loses its buttons; the tool's clock starts now, the wait is kept apart.
 * @param {any} e
 */
function onDecided(e) {
  const text = `${decidedText(e.approved, e.decided_by, e.reason)} · ${stamp(e.at)}`;
  const card =
    Array.from(byId("timeline").querySelectorAll("li[data-approval]")).find(
      (li) => li.getAttribute("data-approval") === e.toolCallId,
    ) ??
    addBefore(
      state.calls[e.toolCallId]?.item,
      el(
        "li",
        { "data-approval": e.toolCallId },
        el("span", { class: "kind", text: "approval" }),
        el("strong", { class: "mono", text: e.toolName }),
        el("span", { class: "meta" }),
      ),
    );
  card.classList.remove("wait");
  card.classList.add("decided", e.approved ? "approved" : "denied");
  card.querySelector(".actions")?.remove();
  const meta = card.querySelector(".meta");
  if (meta) meta.textContent = text;
  const c = state.calls[e.toolCallId];
  if (!c) return;
  c.waitedMs = e.waited_ms;
  c.start = e.at;
  if (e.approved)
    c.meta.textContent = e.waited_ms > 0 ? `running… (waited ${ms(e.waited_ms)} for approval)` : "running…";
}

/**
 * A question's call ended (answered here or elsewhere, or timed out): its card loses its buttons.
 * @param {any} e the tool_execution_end event
 */
function closeQuestion(e) {
  const card = Array.from(byId("timeline").querySelectorAll("li[data-question]")).find(
    (li) => li.getAttribute("data-question") === e.toolCallId,
  );
  if (!card) return;
  card.classList.remove("wait");
  card.querySelector(".actions")?.remove();
  const meta = card.querySelector(".meta");
  if (meta) meta.textContent = `${e.isError ? "not answered" : "answered"} · ${stamp(e.at)}`;
}

/**
 * The run ended (a cancel, a budget) with calls still open: they say so instead of "running…", and
 * a question nobody answered loses its buttons.
 * @param {string} status
 */
function closeOpenCalls(status) {
  for (const c of Object.values(state.calls)) {
    if (c.duration !== undefined) continue;
    c.duration = 0;
    c.meta.textContent = `not finished: the run ended ${status}`;
    c.bar.classList.remove("pending");
    c.bar.style.width = "0";
  }
  for (const card of byId("timeline").querySelectorAll("li.wait")) {
    card.classList.remove("wait");
    card.querySelector(".actions")?.remove();
    const meta = card.querySelector(".meta");
    if (meta) meta.textContent = `not decided: the run ended ${status}`;
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
          thumbnails(e.images),
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
      closeQuestion(e);
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
      // The device's own measure when it sent one; else from dispatch (the decision) to the result.
      /** @type {number} */
      const ran =
        e.result && typeof e.result.elapsed_ms === "number" ? e.result.elapsed_ms : Math.max(0, e.at - c.start);
      c.duration = ran;
      state.maxMs = Math.max(state.maxMs, ran);
      const item = /** @type {HTMLElement} */ (c.item);
      item.classList.add(e.isError ? "error" : "done");
      item.classList.remove("wait");
      const blocked = e.result && e.result.status === "blocked";
      c.meta.textContent = ranText(
        e.isError ? (blocked ? "blocked" : "failed") : "done",
        c.waitedMs,
        blocked ? null : ran,
      );
      item.appendChild(el("pre", { "aria-label": "result", text: clip(resultText(e.result), 4000) }));
      const shots = thumbnails(e.result?.content);
      if (shots) item.appendChild(shots);
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
          thumbnails(e.result?.content),
        ),
      );
      break;
    case "approval_required": {
      const c = state.calls[e.toolCallId];
      if (c) c.meta.textContent = "waiting for approval";
      // Before its tool's card: the question comes first, the run after the decision.
      addBefore(
        c?.item,
        el(
          "li",
          { class: "wait", "data-approval": e.toolCallId },
          el("span", { class: "kind", text: "approval" }),
          el("strong", { class: "mono", text: e.toolName }),
          el("span", { class: "meta", text: "waiting for a person" }),
          el("pre", { text: json(e.args) }),
          approvalControls(state.selected ?? "", { id: e.toolCallId, name: e.toolName, state: "awaiting_approval" }),
        ),
      );
      actions.refreshApprovals();
      break;
    }
    case "approval_decided":
      onDecided(e);
      actions.refreshApprovals();
      break;
    case "question":
      add(
        el(
          "li",
          { class: "wait", "data-question": e.toolCallId },
          el("span", { class: "kind", text: "question" }),
          el("span", { class: "meta", text: "waiting for an answer" }),
          el("p", { class: "text", text: e.question }),
          approvalControls(state.selected ?? "", {
            id: e.toolCallId,
            name: "question",
            state: "awaiting_answer",
            ...(e.options ? { options: e.options } : {}),
          }),
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
      closeOpenCalls(e.status);
      actions.refreshApprovals();
      break;
  }
}
