// @ts-check
/**
 * Adding an OpenClaw node (docs/openclaw-nodes.md): for a device id, the exact `openclaw node run
 * --pair …` and `openclaw connect …` lines to run on the new device, through
 * `POST /v1/openclaw/:agent_id/setup`. They work once and expire; the page shows them and keeps
 * nothing. A node that connects without them waits in "Waiting to pair".
 */
import { api } from "./api.js";
import { byId, el, field, replace } from "./dom.js";

/** @param {Event} event */
function setup(event) {
  event.preventDefault();
  const agentId = field("openclaw-agent").value.trim();
  api(`/v1/openclaw/${encodeURIComponent(agentId)}/setup`, { method: "POST", body: {} })
    .then((s) =>
      replace(
        "openclaw-lines",
        el(
          "div",
          {},
          el("p", {
            text: `On the new device, run one of these (works once, until ${new Date(s.expires_at).toLocaleTimeString()}):`,
          }),
          el("pre", {}, el("code", { class: "mono", id: "openclaw-run", text: s.run })),
          el("pre", {}, el("code", { class: "mono", id: "openclaw-connect", text: s.connect })),
        ),
      ),
    )
    .catch((e) =>
      replace(
        "openclaw-lines",
        el("p", { class: "error-text", role: "alert", text: /** @type {Error} */ (e).message }),
      ),
    );
}

export function startOpenClawSetup() {
  byId("openclaw-form").addEventListener("submit", setup);
}
