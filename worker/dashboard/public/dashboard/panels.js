// @ts-check
/** The devices, conversations and pending approvals panels. */
import { api } from "./api.js";
import { byId, el, replace, statusBadge, table } from "./dom.js";
import { ago, clip, json } from "./format.js";
import { actions, state } from "./state.js";

/** @param {any[]} devices */
export function renderDevices(devices) {
  byId("devices-count").textContent = String(devices.length);
  if (devices.length === 0)
    return replace("devices", el("p", { class: "empty", text: "No device has connected yet." }));
  const body = el("tbody");
  for (const d of devices) {
    const chips = el("div", { class: "chips" });
    for (const t of d.tools || []) chips.appendChild(el("span", { class: "chip", text: t }));
    body.appendChild(
      el(
        "tr",
        {},
        el(
          "td",
          { class: "nowrap" },
          el("span", { class: `dot${d.online ? " on" : ""}`, "aria-hidden": "true" }),
          " ",
          el("strong", { text: d.agent_id }),
        ),
        // Revoked: an OpenClaw key refused until `edgeloop devices clear` (docs/openclaw-nodes.md#revoke).
        el("td", {}, statusBadge(d.online ? "online" : d.revoked ? "revoked" : "offline")),
        el("td", { class: "mono", text: d.version || "—" }),
        // Online: connected now (the hub drops a socket that stops answering); "ago" only once it left.
        el("td", { class: "nowrap", text: d.online ? "now" : ago(d.last_seen) }),
        el("td", {}, chips),
      ),
    );
  }
  replace("devices", table(["Device", "State", "Version", "Last seen", "Tools"], body));
}

/** @param {any[]} rows */
export function renderConversations(rows) {
  state.conversations = rows;
  byId("conversations-count").textContent = String(rows.length);
  if (rows.length === 0) return replace("conversations", el("p", { class: "empty", text: "No conversations yet." }));
  const body = el("tbody");
  for (const r of rows) {
    const open = el("button", {
      type: "button",
      class: "link",
      "data-conversation": r.conversation_id,
      "aria-label": `Watch conversation ${r.conversation_id}`,
      text: clip(r.conversation_id, 22),
      onclick: () => actions.select(r.conversation_id),
    });
    body.appendChild(
      el(
        "tr",
        { class: r.conversation_id === state.selected ? "selected" : null },
        el("td", {}, open),
        el("td", { text: r.agent_id }),
        el("td", {}, statusBadge(r.status)),
        el("td", { text: ago(r.updated_at) }),
        el("td", { class: "clip", title: r.last_text || "", text: r.last_text || "" }),
      ),
    );
  }
  replace("conversations", table(["Conversation", "Device", "Status", "Updated", "Last text"], body));
  if (!state.selected && rows.length > 0) actions.select(rows[0].conversation_id, true);
}

/**
 * @param {string} conversationId
 * @param {string} callId
 * @param {boolean} approve
 * @param {HTMLInputElement} reasonInput
 * @param {HTMLElement} host
 * @param {boolean} [always] remember the decision as an approval rule
 */
async function decide(conversationId, callId, approve, reasonInput, host, always) {
  const buttons = host.querySelectorAll("button");
  for (const b of buttons) b.disabled = true;
  /** @type {{ approve: boolean, scope?: string, reason?: string }} */
  const body = { approve };
  if (always) body.scope = approve ? "always" : "deny_always";
  if (reasonInput.value) body.reason = reasonInput.value;
  const path = `/v1/conversations/${encodeURIComponent(conversationId)}/approvals/${encodeURIComponent(callId)}`;
  try {
    await api(path, { method: "POST", body });
    host.appendChild(el("p", { role: "status", text: approve ? "Approved." : "Denied." }));
    actions.refreshApprovals();
  } catch (e) {
    for (const b of buttons) b.disabled = false;
    host.appendChild(el("p", { class: "error-text", role: "alert", text: /** @type {Error} */ (e).message }));
  }
}

/** The option a remote MCP server's question ends with (durable-objects/conversation/mcp/elicitation-form.ts). */
const DECLINE_OPTION = "✗ Decline";

/**
 * @param {string} conversationId
 * @param {string} callId
 * @param {HTMLInputElement | null} input null: decline a server's question
 * @param {HTMLElement} host
 */
async function answer(conversationId, callId, input, host) {
  if (input && !input.value) return input.focus();
  const path = `/v1/conversations/${encodeURIComponent(conversationId)}/answers/${encodeURIComponent(callId)}`;
  try {
    await api(path, { method: "POST", body: input ? { answer: input.value } : { action: "decline" } });
    host.appendChild(el("p", { role: "status", text: input ? "Answered." : "Declined." }));
    actions.refreshApprovals();
  } catch (e) {
    host.appendChild(el("p", { class: "error-text", role: "alert", text: /** @type {Error} */ (e).message }));
  }
}

/**
 * The buttons that answer a waiting call: approve, deny, always, never (with a reason), or the
 * answer to a question (and, for a remote MCP server's question, declining it).
 * @param {string} conversationId
 * @param {{ id: string, name: string, state: string, options?: string[] }} call
 */
export function approvalControls(conversationId, call) {
  const host = el("div", { class: "actions" });
  const id = `reason-${call.id}`;
  if (call.state === "awaiting_answer") {
    const input = /** @type {HTMLInputElement} */ (
      el("input", { id, type: "text", "aria-label": `Answer for ${call.name}` })
    );
    host.appendChild(input);
    host.appendChild(
      el("button", {
        type: "button",
        class: "primary",
        text: "Answer",
        onclick: () => answer(conversationId, call.id, input, host),
      }),
    );
    if (call.options?.includes(DECLINE_OPTION))
      host.appendChild(
        el("button", {
          type: "button",
          text: "Decline",
          "aria-label": `Decline the question of ${call.name}`,
          onclick: () => answer(conversationId, call.id, null, host),
        }),
      );
    return host;
  }
  const reason = /** @type {HTMLInputElement} */ (
    el("input", {
      id,
      type: "text",
      placeholder: "reason (optional)",
      "aria-label": `Reason for ${call.name} ${call.id}`,
    })
  );
  /** @param {boolean} approve @param {boolean} [always] */
  const decideWith = (approve, always) => () => decide(conversationId, call.id, approve, reason, host, always);
  host.appendChild(
    el("button", {
      type: "button",
      class: "approve",
      "data-approve": call.id,
      "aria-label": `Approve ${call.name} ${call.id}`,
      text: "Approve",
      onclick: decideWith(true),
    }),
  );
  host.appendChild(
    el("button", {
      type: "button",
      class: "deny",
      "data-deny": call.id,
      "aria-label": `Deny ${call.name} ${call.id}`,
      text: "Deny",
      onclick: decideWith(false),
    }),
  );
  // Remembered for this tool on this device (an approval rule, listed below).
  host.appendChild(
    el("button", {
      type: "button",
      "data-approve-always": call.id,
      "aria-label": `Always approve ${call.name} on this device`,
      text: "Always",
      onclick: decideWith(true, true),
    }),
  );
  host.appendChild(
    el("button", {
      type: "button",
      "data-deny-always": call.id,
      "aria-label": `Always deny ${call.name} on this device`,
      text: "Never",
      onclick: decideWith(false, true),
    }),
  );
  host.appendChild(reason);
  return host;
}

/** @param {{ conversation_id: string, agent_id: string, call: any }[]} items */
export function renderApprovals(items) {
  byId("approvals-count").textContent = String(items.length);
  const key = items.map((i) => `${i.conversation_id}/${i.call.id}`).join(",");
  if (key === state.approvalsKey) return; // keep focus and typed reasons while nothing changed
  state.approvalsKey = key;
  if (items.length === 0) return replace("approvals", el("p", { class: "empty", text: "Nothing is waiting." }));
  const list = el("div");
  for (const i of items) {
    const question = i.call.state === "awaiting_answer";
    list.appendChild(
      el(
        "article",
        { class: "approval", "aria-label": (question ? "Question from " : "Approval for ") + i.call.name },
        el(
          "p",
          { class: "what" },
          el("strong", { text: i.call.name }),
          " ",
          el("span", { class: "mono", text: i.call.id }),
          " in ",
          el("button", {
            type: "button",
            class: "link",
            text: clip(i.conversation_id, 22),
            onclick: () => actions.select(i.conversation_id),
          }),
          " on ",
          i.agent_id,
        ),
        el("pre", {
          text:
            question && (i.call.question ?? i.call.args?.question)
              ? (i.call.question ?? i.call.args.question)
              : json(i.call.args),
        }),
        approvalControls(i.conversation_id, i.call),
      ),
    );
  }
  replace("approvals", list);
}
