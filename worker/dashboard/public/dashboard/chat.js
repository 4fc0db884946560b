// @ts-check
/**
 * The message form. The operator writes to a device, a pool, or several devices at once (a new
 * conversation; fleets in chat-fleet.js) or into the conversation the timeline shows, through POST /v1/messages with the session cookie and the CSRF
 * header (api.js), and the timeline then follows that conversation live.
 */
import { api } from "./api.js";
import {
  FLEET_CHOICE,
  fleetBoxes,
  rememberedFleet,
  rememberTarget,
  showFleetBoxes,
  targetFields,
} from "./chat-fleet.js";
import { byId, el, field } from "./dom.js";
import { clip } from "./format.js";
import { actions, state } from "./state.js";

/**
 * The form's targets: this conversation, each device, several devices, each pool (one of its
 * devices, or all of them).
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
  if (state.chatDevices.length >= 2)
    target.appendChild(
      el(
        "optgroup",
        { label: "New conversation with several devices" },
        el("option", { value: FLEET_CHOICE, text: "Several devices at once (fleet)…" }),
      ),
    );
  fleetBoxes(state.chatDevices);
  group = el("optgroup", { label: "New conversation with a pool" });
  for (const p of state.chatPools) {
    const members = p.members.join(", ");
    group.appendChild(el("option", { value: `pool:${p.pool}`, text: `${p.pool} (${members}): one device` }));
    group.appendChild(el("option", { value: `pool-fleet:${p.pool}`, text: `${p.pool} (${members}): all at once` }));
  }
  if (state.chatPools.length) target.appendChild(group);
  const still = Array.from(target.options).some((o) => o.value === keep);
  if (!followSelection && still) target.value = keep;
  showFleetBoxes(target.value);
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
  button.disabled = true;
  chatStatus("Sending…");
  try {
    const conversation = target.startsWith("conv:") ? target.slice("conv:".length) : null;
    const fields = conversation
      ? (rememberedFleet(conversation) ?? { agent_id: await agentOf(conversation) })
      : targetFields(target);
    const body = { text, ...fields, ...(conversation ? { conversation_id: conversation } : {}) };
    const r = await api("/v1/messages", { method: "POST", body });
    rememberTarget(r.conversation_id, fields);
    input.value = "";
    const devices = Array.isArray(fields.agent_ids) ? fields.agent_ids.join(", ") : r.agent_id;
    chatStatus(`Sent to ${fields.mode === "fleet" ? `pool ${fields.pool} (all its devices)` : devices}.`);
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
  byId("chat-target").addEventListener("change", (e) => {
    state.targetChosen = true;
    showFleetBoxes(/** @type {HTMLSelectElement} */ (e.target).value);
  });
  byId("chat-text").addEventListener("keydown", (e) => {
    // Ctrl/Cmd+Enter sends; Enter alone is a new line, as in most chat boxes with a multi-line field.
    if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) form.requestSubmit();
  });
}
