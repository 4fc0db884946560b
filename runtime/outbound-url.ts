/**
 * The one rule for URLs the orchestrator calls out to on a tool's behalf (webhook tools, remote
 * MCP servers): an absolute https URL; plain http only when the deployment allows it for local
 * testing (`ALLOW_HTTP_WEBHOOK_TOOLS=true`). Pure, so every caller and its tests apply the same
 * check; further rules (private addresses, allow-lists) belong here too.
 */
export type OutboundUrlCheck = { ok: true; url: URL } | { ok: false; kind: "invalid" | "refused"; reason: string };

export type OutboundUrlPolicy = {
  /** `http://` allowed (local testing only) */
  allowHttp: boolean;
};

export function checkOutboundUrl(raw: string, policy: OutboundUrlPolicy): OutboundUrlCheck {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, kind: "invalid", reason: "invalid URL" };
  }
  if (url.protocol === "https:") return { ok: true, url };
  if (url.protocol === "http:" && policy.allowHttp) return { ok: true, url };
  return {
    ok: false,
    kind: "refused",
    reason: `only https URLs are allowed (got ${url.protocol}//${url.host})`,
  };
}
