import type { ConsentDescription } from "@cloudflare/workers-oauth-provider";
import { KEY_SCOPES, type KeyScope } from "@edgeloop/protocol/api-keys";
import { DEFAULT_CONSENT_SCOPES } from "../oauth/consent-form.js";
import { escapeHtml } from "./html-escape.js";
import { singlePage } from "./single-page.js";

/** What the consent page offers: the devices the registry knows and the configured pools. */
export type ConsentChoices = { devices: { agent_id: string; online: boolean }[]; pools: string[] };

/** One line per scope, so the admin knows what each box lets the client do. */
const SCOPE_TEXT: Record<KeyScope, string> = {
  mcp: "use the MCP server at all",
  tools: "call the chosen devices' tools directly",
  "devices:read": "list the chosen devices",
  messages: "start runs of the loop on them (send_message)",
  "conversations:read": "read and follow the runs it started",
  "conversations:write": "approve, answer and cancel in its runs",
  schedules: "make schedules",
  approval_rules: "set approval rules for its runs on the chosen devices",
};

/**
 * The dashboard's OAuth consent page: which client asks (its name, which it chose itself, and where
 * the tokens will go), and what it may reach, chosen as a scoped key's grant is. Everything the
 * client supplied is escaped: a registered name is the client's own text.
 */
export function consentPage(d: ConsentDescription, handle: string, choices: ConsentChoices): string {
  const name = escapeHtml(d.clientName);
  const devices = choices.devices
    .map(
      (dev) =>
        `<label><input type="checkbox" name="agents" value="${escapeHtml(dev.agent_id)}"> ${escapeHtml(dev.agent_id)}${dev.online ? "" : " (offline)"}</label>`,
    )
    .join("\n");
  const pools = choices.pools
    .map((p) => `<label><input type="checkbox" name="pools" value="${escapeHtml(p)}"> pool ${escapeHtml(p)}</label>`)
    .join("\n");
  const scopes = KEY_SCOPES.map(
    (s) =>
      `<label><input type="checkbox" name="scopes" value="${s}"${DEFAULT_CONSENT_SCOPES.includes(s) ? " checked" : ""}> <code>${s}</code>: ${escapeHtml(SCOPE_TEXT[s])}</label>`,
  ).join("\n");
  return singlePage(
    `edgeloop — allow ${d.clientName}?`,
    `<form class="login consent" method="post" action="/oauth/authorize">
  <h1>Allow ${name} to use your devices?</h1>
  <p><strong id="client-name">${name}</strong> asks to use this fleet's MCP server.
  ${d.clientDomain ? `It is published by <strong id="client-domain">${escapeHtml(d.clientDomain)}</strong>, where its metadata document is.` : "It registered itself: its name is not verified."}</p>
  <p>Access will be sent to <strong id="redirect-uri">${escapeHtml(d.redirectUri)}</strong>.</p>
  ${d.redirectIsLoopback ? '<p class="error">This sends access to an app on your computer. Continue only if you just started connecting from it.</p>' : ""}
  <fieldset><legend>Devices it may reach</legend>
  <label><input type="checkbox" name="agents" value="*"> every device, now and later</label>
  ${devices || "<p>No device has connected yet.</p>"}
  ${pools}
  </fieldset>
  <fieldset><legend>What it may do with them</legend>
  ${scopes}
  </fieldset>
  <p>Approval rules and tool approvals apply to it as to any key. You can revoke it at any time in the dashboard's Keys panel or with <code>edgeloop mcp revoke</code>.</p>
  <input type="hidden" name="handle" value="${escapeHtml(handle)}">
  <button class="primary" type="submit" name="decision" value="approve">Allow</button>
  <button type="submit" name="decision" value="deny">Deny</button>
</form>`,
  );
}

/** A refused consent request, shown here and never redirected (the client or its redirect is not trusted). */
export function consentErrorPage(message: string, errors: readonly string[] = []): string {
  return singlePage(
    "edgeloop — authorization refused",
    `<section class="login">
  <h1>Not authorized</h1>
  <p class="error" role="alert">${escapeHtml(message)}</p>
  ${errors.length ? `<ul>${errors.map((e) => `<li>${escapeHtml(e)}</li>`).join("")}</ul>` : ""}
  <p>Go back to the app that sent you here and connect again.</p>
</section>`,
  );
}
