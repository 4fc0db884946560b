import type { ClientInfo } from "@cloudflare/workers-oauth-provider";
import { z } from "zod";

/**
 * Client ID metadata documents (draft-ietf-oauth-client-id-metadata-document-00, which the MCP
 * authorization specification 2025-11-25 adopts): an app's `client_id` is an https URL, and the
 * JSON document at that URL describes the app. This file holds the rules, pure so they are
 * unit-tested in Node; metadata-clients.ts fetches the document through the guarded outbound fetch
 * and hands the result to the OAuth library (docs/mcp.md#apps-that-name-themselves-by-url).
 */

/** The bound the draft suggests for a document: anything bigger is refused. */
export const MAX_DOCUMENT_BYTES = 5 * 1024;
/** How long a document is trusted without fetching it again, at most, whatever its Cache-Control says. */
export const MAX_CACHE_S = 86_400;
const MAX_CLIENT_ID_LENGTH = 400;
/** Workers KV keeps nothing for less than a minute: a shorter lifetime means fetching every time. */
const MIN_CACHE_S = 60;

/**
 * Whether a `client_id` names a metadata document: an https URL with a path other than `/`. The
 * OAuth library keys such a client, like every other, as `client:<client_id>` in OAUTH_KV; an id
 * the library issues at registration is never a URL, so the two kinds cannot meet.
 */
export function isMetadataDocumentUrl(clientId: string): boolean {
  return URL.canParse(clientId) && new URL(clientId).protocol === "https:" && new URL(clientId).pathname !== "/";
}

/**
 * Why a client ID URL is refused, or null (the draft's rules): https, a path, no fragment, no user or
 * password, no `.` or `..` segments. Asking for the URL exactly as a URL parser writes it also
 * refuses dot segments in any spelling (`%2e%2e`), backslashes, stray spaces and an upper-case
 * host: one app, one spelling, so one client record.
 */
export function clientIdUrlProblem(clientId: string): string | null {
  // OAUTH_KV keys hold at most 512 bytes, and the record's key is the client_id (a URL as written is ASCII).
  if (clientId.length > MAX_CLIENT_ID_LENGTH)
    return `the client_id URL is longer than ${MAX_CLIENT_ID_LENGTH} characters`;
  if (!URL.canParse(clientId)) return "the client_id is not a URL";
  const url = new URL(clientId);
  if (url.protocol !== "https:") return "the client_id must be an https URL";
  if (url.pathname === "/") return "the client_id URL must have a path";
  if (url.username || url.password) return "the client_id URL must not carry a user or password";
  if (clientId.includes("#")) return "the client_id URL must not have a fragment";
  if (url.href !== clientId) return `the client_id URL must be written as ${url.href}`;
  return null;
}

/** A redirect URI the authorization server may send a code to: https, or http on the app's own computer. */
function usableRedirect(uri: string): boolean {
  if (!URL.canParse(uri) || uri.includes("#")) return false;
  const url = new URL(uri);
  if (url.username || url.password) return false;
  if (url.protocol === "https:") return true;
  const host = url.hostname;
  return url.protocol === "http:" && (host === "localhost" || host === "[::1]" || /^127(\.\d{1,3}){3}$/.test(host));
}

const SECRET_AUTH_METHODS = ["client_secret_basic", "client_secret_post", "client_secret_jwt"];

/**
 * The document's fields edgeloop reads; any other field is allowed by the draft, and ignored. Only
 * public clients: a document cannot carry a shared secret, and this server does not verify
 * `private_key_jwt` assertions, so the app must offer `none`.
 */
const MetadataDocument = z
  .object({
    client_id: z.string(),
    client_name: z.string().trim().min(1, "client_name must not be empty").max(200),
    redirect_uris: z.array(z.string().max(2048)).min(1, "redirect_uris must not be empty").max(32),
    client_uri: z.string().max(2048).optional(),
    grant_types: z.array(z.string()).max(16).optional(),
    response_types: z.array(z.string()).max(16).optional(),
    token_endpoint_auth_method: z.string().optional(),
    token_endpoint_auth_methods_supported: z.array(z.string()).max(16).optional(),
  })
  .superRefine((doc, ctx) => {
    if (doc.token_endpoint_auth_method && SECRET_AUTH_METHODS.includes(doc.token_endpoint_auth_method))
      ctx.addIssue({ code: "custom", message: `${doc.token_endpoint_auth_method} needs a shared secret` });
    const offered = doc.token_endpoint_auth_methods_supported ?? [doc.token_endpoint_auth_method ?? "none"];
    if (!offered.includes("none"))
      ctx.addIssue({
        code: "custom",
        message: "this server takes public clients only (token_endpoint_auth_method none)",
      });
    if (doc.response_types && !doc.response_types.includes("code"))
      ctx.addIssue({ code: "custom", message: "response_types must include code" });
    if (doc.grant_types && !doc.grant_types.includes("authorization_code"))
      ctx.addIssue({ code: "custom", message: "grant_types must include authorization_code" });
  });

export type DocumentCheck = { ok: true; client: ClientInfo } | { ok: false; reason: string };

/**
 * The client a fetched document describes, as the OAuth library stores a client, or why it is
 * refused. `body` is the document's text (at most MAX_DOCUMENT_BYTES, checked by the caller).
 */
export function clientFromDocument(clientId: string, body: string, now: number): DocumentCheck {
  const urlProblem = clientIdUrlProblem(clientId);
  if (urlProblem) return { ok: false, reason: urlProblem };
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return { ok: false, reason: "the document is not JSON" };
  }
  if (typeof json !== "object" || json === null || Array.isArray(json))
    return { ok: false, reason: "the document is not a JSON object" };
  if ("client_secret" in json || "client_secret_expires_at" in json)
    return { ok: false, reason: "a metadata document must not contain a client_secret" };
  const doc = MetadataDocument.safeParse(json);
  if (!doc.success) {
    const issue = doc.error.issues[0]!;
    const where = issue.path.length ? `${issue.path.join(".")}: ` : "";
    return { ok: false, reason: `${where}${issue.message}` };
  }
  // Simple string comparison, as the draft says: the document must name the very URL it was fetched from.
  if (doc.data.client_id !== clientId)
    return { ok: false, reason: `the document's client_id is ${doc.data.client_id}, not the URL it was fetched from` };
  // Redirect URIs for surfaces a code is never sent to (a desktop app's own scheme) are left out.
  const redirectUris = doc.data.redirect_uris.filter(usableRedirect);
  if (redirectUris.length === 0)
    return { ok: false, reason: "no redirect_uri is https or http on localhost, where a code may be sent" };
  const clientUri = doc.data.client_uri;
  return {
    ok: true,
    client: {
      clientId,
      clientName: doc.data.client_name,
      redirectUris,
      ...(clientUri && URL.canParse(clientUri) && new URL(clientUri).protocol === "https:" ? { clientUri } : {}),
      grantTypes: (doc.data.grant_types ?? ["authorization_code"]).filter(
        (g) => g === "authorization_code" || g === "refresh_token",
      ),
      responseTypes: ["code"],
      tokenEndpointAuthMethod: "none",
      registrationDate: Math.floor(now / 1000),
    },
  };
}

/**
 * How long a fetched document is used without fetching it again (the server caches as the
 * document's HTTP headers say, within bounds of its own, as the draft and MCP ask): its `max-age` (or `s-maxage`), at
 * most MAX_CACHE_S; 0 (fetch every time) for `no-store`, `no-cache`, `private`, no header, or
 * under a minute.
 */
export function cacheSeconds(cacheControl: string | null): number {
  if (!cacheControl || /(?:^|,)\s*(?:no-store|no-cache|private)\b/i.test(cacheControl)) return 0;
  const m =
    /(?:^|,)\s*s-maxage\s*=\s*"?(\d+)/i.exec(cacheControl) ?? /(?:^|,)\s*max-age\s*=\s*"?(\d+)/i.exec(cacheControl);
  if (!m) return 0;
  const s = Math.min(Number(m[1]), MAX_CACHE_S);
  return s >= MIN_CACHE_S ? s : 0;
}
