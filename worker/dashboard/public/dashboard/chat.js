// @ts-check
/**
 * The message form. The operator writes to a device or a pool (a new conversation) or into the
 * conversation the timeline shows, through POST /v1/messages with the session cookie and the CSRF
 * header (api.js), and the timeline then follows that conversation live.
 */
import { api } from "./api.js";
import { byId, el, field } from "./dom.js";
import { clip } from "./format.js";
import { actions, state } from "./state.js";

/**
 * The form's targets: this conversation, each device, each pool.
 * @param {any[] | null} devices
 * @param {any[] | null} pools
 * @param {boolean} followSelection the timeline switched conversations, so the next message goes into that one
 */
export function chatTargets(devices, pools, followSelection) {
  if (devices) state.chatDevices = devices;
  if (pools) state.chatPools = pools;
  const target = /** @type {HTMLSelectElement} */ (byId("chat-target"));
  const keep = target.value;
  target.textContent = "";
  if (state.selected) {
    const row = state.conversations.find((r) => r.conversation_id === state.selected);
    const text = `This conversation (${clip(state.selected, 22)}${row ? `, ${row.agent_id}` : ""})`;
    target.appendChild(el("option", { value: `conv:${state.selected}`, text }));
  }
  let group = el("optgroup", { label: "New conversation with a device" });
  for (const d of state.chatDevices)
    group.appendChild(
      el("option", { value: `agent:${d.agent_id}`, text: d.agent_id + (d.online ? "" : " (offline)") }),
    );
  if (state.chatDevices.length) target.appendChild(group);
  group = el("optgroup", { label: "New conversation with a pool" });
  for (const p of state.chatPools)
    group.appendChild(el("option", { value: `pool:${p.pool}`, text: `${p.pool} (${p.members.join(", ")})` }));
  if (state.chatPools.length) target.appendChild(group);
  const still = Array.from(target.options).some((o) => o.value === keep);
  if (!followSelection && still) target.value = keep;
  /** @type {HTMLButtonElement} */ (byId("chat-send")).disabled = target.options.length === 0;
}

/**
 * @param {string} conversationId
 * @returns {Promise<string>}
 */
async function agentOf(conversationId) {
  const row = state.conversations.find((r) => r.conversation_id === conversationId);
  if (row) return row.agent_id;
  return (await api(`/v1/conversations/${encodeURIComponent(conversationId)}`)).agent_id;
}

/**
 * @param {string} text
 * @param {boolean} [isError]
 */
function chatStatus(text, isError) {
  const host = byId("chat-status");
  host.textContent = "";
  host.appendChild(el("span", { class: isError ? "error-text" : "", role: isError ? "alert" : null, text }));
}

/** @param {Event} ev */
async function sendChat(ev) {
  ev.preventDefault();
  const input = field("chat-text");
  const button = /** @type {HTMLButtonElement} */ (byId("chat-send"));
  const target = field("chat-target").value;
  const text = input.value.trim();
  if (!text) return input.focus();
  const colon = target.indexOf(":");
  const kind = target.slice(0, colon);
  const id = target.slice(colon + 1);
  /** @type {Record<string, string>} */
  const body = { text };
  button.disabled = true;
  chatStatus("Sending…");
  try {
    if (kind === "conv") {
      const agent = await agentOf(id);
      body.conversation_id = id;
      body.agent_id = agent;
    } else body[kind === "pool" ? "pool" : "agent_id"] = id;
    const r = await api("/v1/messages", { method: "POST", body });
    input.value = "";
    chatStatus(`Sent to ${r.agent_id}.`);
    actions.select(r.conversation_id);
    actions.refreshConversations();
  } catch (e) {
    chatStatus(`Not sent: ${/** @type {Error} */ (e).message}`, true);
  }
  button.disabled = false;
}

export function startChat() {
  const form = /** @type {HTMLFormElement} */ (byId("chat"));
  form.addEventListener("submit", sendChat);
  byId("chat-text").addEventListener("keydown", (e) => {
    // Ctrl/Cmd+Enter sends; Enter alone is a new line, as in most chat boxes with a multi-line field.
    if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) form.requestSubmit();
  });
}
