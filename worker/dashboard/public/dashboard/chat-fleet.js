// @ts-check
/**
 * The message form's fleets (docs/fleet.md): the devices to tick for a message to several devices
 * at once, and the target fields a form choice stands for. The front door checks the target
 * (devices known, granted, 2 to 16 of them); the form only says what it sends.
 */
import { byId, el } from "./dom.js";
import { state } from "./state.js";

/** The form's choice for "several devices"; its devices are the ticked boxes. */
export const FLEET_CHOICE = "fleet:";

/** The devices the boxes were last drawn for: the list refreshes every few seconds, mostly unchanged. */
let drawn = "";

/**
 * The device boxes, redrawn only when the devices change (a redraw would take the keyboard focus
 * off a box); a box keeps its tick across redraws.
 * @param {any[]} devices
 */
export function fleetBoxes(devices) {
  const key = devices.map((d) => `${d.agent_id}:${d.online}`).join(",");
  if (key === drawn) return;
  drawn = key;
  const host = byId("chat-fleet-devices");
  const ticked = new Set(tickedDevices());
  host.textContent = "";
  for (const d of devices) {
    const box = el("input", { type: "checkbox", name: "fleet", value: d.agent_id });
    /** @type {HTMLInputElement} */ (box).checked = ticked.has(d.agent_id);
    host.appendChild(el("label", {}, box, ` ${d.agent_id}${d.online ? "" : " (offline)"}`));
  }
}

/** The ticked devices, in the list's order: the first is the conversation's home. */
function tickedDevices() {
  return Array.from(document.querySelectorAll("#chat-fleet-devices input:checked")).map(
    (b) => /** @type {HTMLInputElement} */ (b).value,
  );
}

/**
 * The boxes are shown only while "several devices" is chosen.
 * @param {string} choice the form's target value
 */
export function showFleetBoxes(choice) {
  byId("chat-fleet").hidden = choice !== FLEET_CHOICE;
}

/**
 * The body fields a new conversation's target stands for: `agent:<id>`, `pool:<name>`,
 * `pool-fleet:<name>` (all the pool's devices at once) or FLEET_CHOICE (the ticked devices).
 * @param {string} choice
 * @returns {Record<string, unknown>}
 */
export function targetFields(choice) {
  const colon = choice.indexOf(":");
  const kind = choice.slice(0, colon);
  const id = choice.slice(colon + 1);
  if (kind === "pool") return { pool: id };
  if (kind === "pool-fleet") return { pool: id, mode: "fleet" };
  if (choice === FLEET_CHOICE) {
    const ids = tickedDevices();
    if (ids.length < 2) throw new Error("tick at least two devices for a fleet");
    return { agent_ids: ids };
  }
  return { agent_id: id };
}

/**
 * A conversation this form started over a fleet: its next message names the same devices, so the
 * fleet's tools stay offered (with the home device alone it would be that device's tools only).
 * @param {string} conversationId
 * @param {Record<string, unknown>} fields
 */
export function rememberTarget(conversationId, fields) {
  if (fields.agent_ids || fields.mode === "fleet") state.chatFleets[conversationId] = fields;
}

/**
 * @param {string} conversationId
 * @returns {Record<string, unknown> | undefined}
 */
export const rememberedFleet = (conversationId) => state.chatFleets[conversationId];
