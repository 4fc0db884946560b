import { readCappedBody } from "../../durable-objects/conversation/builtins/capped-body.js";
import { guardedFetch, OutboundRefused } from "../../runtime/guarded-fetch.js";
import type { OutboundUrlPolicy } from "../../runtime/outbound-url.js";
import {
  cacheSeconds,
  clientFromDocument,
  clientIdUrlProblem,
  MAX_DOCUMENT_BYTES,
} from "./client-metadata-document.js";
import { GRANT_TTL_S } from "./oauth-names.js";

/**
 * Apps that name themselves by URL (client ID metadata documents; the rules are in
 * client-metadata-document.ts). The OAuth library fetches such documents itself only under the
 * `global_fetch_strictly_public` compatibility flag, which would change every fetch the worker
 * makes; so edgeloop fetches the document here, through the guarded outbound fetch every other
 * call to a URL from outside goes through (runtime/guarded-fetch.ts: public https addresses only,
 * unless ALLOW_PRIVATE_OUTBOUND), and stores the client it describes where the library looks a
 * client up, `client:<client_id>` in OAUTH_KV (the library's documented storage schema). With its
 * own fetching off, the library treats that record as a registered public client.
 *
 * Resolved on each authorization request, before the library reads the client: a document is
 * fetched again once its cache lifetime (its own Cache-Control, at most a day) has passed. The
 * record outlives the longest grant, so a refresh never finds its client gone.
 */

/** Beside the library's keys in OAUTH_KV: present while a document's cache lifetime lasts. */
const FRESH_PREFIX = "edgeloop:cimd-fresh:";
const FETCH_TIMEOUT_MS = 5_000;
/** The client record lasts as long as any grant made from it can (30 days), and a day more. */
const CLIENT_RECORD_TTL_S = GRANT_TTL_S + 86_400;

export type MetadataClientEnv = { OAUTH_KV: KVNamespace };
export type Resolved = { ok: true } | { ok: false; reason: string };

/**
 * Make sure the client a metadata document URL names is known to the library: nothing to do while
 * its document is fresh, else fetch it (fetchMetadataClient).
 */
export async function resolveMetadataClient(
  env: MetadataClientEnv,
  policy: OutboundUrlPolicy,
  clientId: string,
  fetchImpl: typeof fetch = fetch,
  now = Date.now(),
): Promise<Resolved> {
  if (await metadataClientIsFresh(env, clientId)) return { ok: true };
  return fetchMetadataClient(env, policy, clientId, fetchImpl, now);
}

/** Whether the document was fetched within its cache lifetime (then its client record is current). */
export async function metadataClientIsFresh(env: MetadataClientEnv, clientId: string): Promise<boolean> {
  return (await env.OAUTH_KV.get(`${FRESH_PREFIX}${clientId}`)) !== null;
}

/**
 * Fetch the document and store the client it describes. Refused: a URL against the draft's rules
 * or the outbound rule, a response other than 200 (redirects are not followed: the document lives
 * at its own URL), a document over 5 KB, or one the rules refuse. A refusal leaves an earlier
 * record alone, so a grant made earlier keeps refreshing while the app's host is down.
 */
export async function fetchMetadataClient(
  env: MetadataClientEnv,
  policy: OutboundUrlPolicy,
  clientId: string,
  fetchImpl: typeof fetch = fetch,
  now = Date.now(),
): Promise<Resolved> {
  const urlProblem = clientIdUrlProblem(clientId);
  if (urlProblem) return { ok: false, reason: urlProblem };
  let res: Response;
  try {
    res = await guardedFetch(policy, fetchImpl)(clientId, {
      headers: { accept: "application/json" },
      redirect: "manual",
      signal: AbortSignal.timeout(FETCH_TIMEOUT_MS),
    });
  } catch (e) {
    if (e instanceof OutboundRefused) return { ok: false, reason: e.message };
    return { ok: false, reason: `the document could not be fetched (${e instanceof Error ? e.name : "error"})` };
  }
  if (res.status !== 200) {
    await res.body?.cancel();
    return { ok: false, reason: `the document's URL answered HTTP ${res.status}` };
  }
  let body: Awaited<ReturnType<typeof readCappedBody>>;
  try {
    body = await readCappedBody(res, MAX_DOCUMENT_BYTES);
  } catch (e) {
    return { ok: false, reason: `the document could not be read (${e instanceof Error ? e.name : "error"})` };
  }
  if (body.truncated) return { ok: false, reason: `the document is larger than ${MAX_DOCUMENT_BYTES} bytes` };
  const checked = clientFromDocument(clientId, body.text, now);
  if (!checked.ok) return checked;
  await env.OAUTH_KV.put(`client:${clientId}`, JSON.stringify(checked.client), {
    expirationTtl: CLIENT_RECORD_TTL_S,
  });
  const fresh = cacheSeconds(res.headers.get("cache-control"));
  if (fresh > 0) await env.OAUTH_KV.put(`${FRESH_PREFIX}${clientId}`, "1", { expirationTtl: fresh });
  return { ok: true };
}
