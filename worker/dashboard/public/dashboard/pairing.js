// @ts-check
/**
 * Devices waiting to pair: each request's code (the one its device shows), the id it asks for and
 * what it says about itself, with Approve and Deny, through `/v1/pairing`. Approving gives the
 * device its own token, which only the device collects: nothing secret passes through this page.
 */
import { api, every } from "./api.js";
import { byId, el, replace, table } from "./dom.js";
import { ago } from "./format.js";

/** @param {unknown} e */
const showError = (e) =>
  replace("pairing-status", el("p", { class: "error-text", role: "alert", text: /** @type {Error} */ (e).message }));

/**
 * @param {string} code
 * @param {"approve" | "deny"} action
 */
function decide(code, action) {
  // A body, even empty, so the write carries the CSRF header the API asks of cookie sessions.
  api(`/v1/pairing/${encodeURIComponent(code)}/${action}`, { method: "POST", body: {} })
    .then((r) =>
      replace(
        "pairing-status",
        el("p", {
          text:
            action === "approve"
              ? `Approved ${r.code}: ${r.agent_id} collects its own token in a few seconds.`
              : `Denied ${r.code} (${r.agent_id}).`,
        }),
      ),
    )
    .then(refreshPairing)
    .catch(showError);
}

/** @param {{ code: string, agent_id: string, kind: string, label: string | null, created_at: number, known_device?: boolean }[]} rows */
function renderPairing(rows) {
  byId("pairing-count").textContent = String(rows.length);
  if (rows.length === 0) return replace("pairing", el("p", { class: "empty", text: "No device is waiting to pair." }));
  const body = el("tbody");
  for (const p of rows) {
    body.appendChild(
      el(
        "tr",
        {},
        el("td", {}, el("strong", { class: "mono", text: p.code })),
        el(
          "td",
          {},
          p.agent_id,
          p.known_device ? el("span", { class: "error-text", text: " (this id already has a device)" }) : null,
        ),
        el("td", { text: `${p.kind}${p.label ? `: ${p.label}` : ""}` }),
        el("td", { class: "nowrap", text: ago(p.created_at) }),
        el(
          "td",
          { class: "nowrap" },
          el("button", {
            type: "button",
            class: "primary",
            "aria-label": `Approve ${p.code} for ${p.agent_id}`,
            text: "Approve",
            onclick: () => decide(p.code, "approve"),
          }),
          " ",
          el("button", {
            type: "button",
            class: "deny",
            "aria-label": `Deny ${p.code} for ${p.agent_id}`,
            text: "Deny",
            onclick: () => decide(p.code, "deny"),
          }),
        ),
      ),
    );
  }
  replace("pairing", table(["Code", "Device", "Asks as", "Asked", "Actions"], body));
}

async function refreshPairing() {
  try {
    renderPairing((await api("/v1/pairing")).pending);
  } catch {
    /* the next refresh tries again */
  }
}

export function startPairing() {
  every(refreshPairing, 5000);
}
