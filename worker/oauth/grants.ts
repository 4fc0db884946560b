import type { AuthRequest, GrantSummary, OAuthHelpers } from "@cloudflare/workers-oauth-provider";
import type { KeyScope } from "@edgeloop/protocol/api-keys";
import { GRANT_ID_PREFIX, type McpGrantView } from "@edgeloop/protocol/mcp-grants";
import { z } from "zod";
import { deploymentOf } from "../../durable-objects/addresses.js";
import { forgetKey } from "../../durable-objects/deployment/in-force.js";
import { log } from "../../runtime/log.js";
import type { Env } from "../env.js";
import { isMetadataDocumentUrl } from "./client-metadata-document.js";
import type { ConsentGrant } from "./consent-form.js";
import { grantIdOfRedirect, grantRecordKey } from "./grant-links.js";
import { GRANT_USER } from "./oauth-names.js";

/**
 * OAuth grants as scoped keys. Approving a client issues a scoped key with the grant the admin
 * chose; the key itself travels only inside the grant's `props`, which the library encrypts with a
 * key wrapped by each token, so only a token's holder can unwrap it. A request with an access
 * token is then judged as a request with that key (middleware/authorize.ts): the same principal,
 * the same checks, the same trusted copy. Revoking a grant revokes its key and deletes its tokens;
 * a grant the library removes by itself takes its key with it when grants or keys are next listed
 * (followGrants).
 */

/** What the grant's tokens unwrap to. */
export const GrantProps = z.object({ key: z.string().min(1) });
export type GrantProps = z.infer<typeof GrantProps>;

/** Stored in the clear beside the grant (the library lists grants by it): never the key. */
const GrantMetadata = z.object({
  key_id: z.string(),
  client_name: z.string(),
  redirect_uri: z.string(),
  agents: z.array(z.string()),
  pools: z.array(z.string()),
  scopes: z.array(z.string()),
});

/**
 * Issue the key and complete the authorization. An earlier grant of the same client is replaced by
 * the library (it revokes the user's grants for that client and resource); their keys are revoked
 * here first, so a replaced grant leaves no live key behind. An app named by its metadata
 * document's URL shares that client_id with every installation of it, so, as the library does,
 * only its grant to the same redirect URI is replaced.
 */
export async function approveGrant(
  env: Env,
  oauth: OAuthHelpers,
  request: AuthRequest,
  clientName: string,
  grant: ConsentGrant,
): Promise<string> {
  for (const old of await grantsReplacedBy(oauth, request)) await revokeGrantKey(env, old);
  const key = await deploymentOf(env).createKey(grant);
  const metadata: z.infer<typeof GrantMetadata> = {
    key_id: key.key_id,
    client_name: clientName,
    redirect_uri: request.redirectUri,
    agents: grant.agents,
    pools: grant.pools,
    scopes: grant.scopes,
  };
  let redirectTo: string;
  try {
    ({ redirectTo } = await oauth.completeAuthorization({
      request,
      userId: GRANT_USER,
      metadata,
      scope: grant.scopes,
      props: { key: key.key } satisfies GrantProps,
    }));
  } catch (error) {
    // No grant was made: its key goes too.
    await deploymentOf(env).revokeKey(key.key_id);
    throw error;
  }
  // The key follows its grant from now on (grant-links.ts).
  const grantId = grantIdOfRedirect(redirectTo);
  if (grantId) await deploymentOf(env).linkGrantKey(key.key_id, grantId);
  else log("warn", "oauth grant id not found in the code: its key will not follow it", { key_id: key.key_id });
  return redirectTo;
}

/**
 * Revoke the keys whose grant the library removed by itself (grant-links.ts): run before grants or
 * keys are listed, so neither list shows a key nobody can use. One KV read per grant key.
 */
export async function followGrants(env: Env): Promise<void> {
  const deployment = deploymentOf(env);
  const linked = await deployment.grantKeys();
  const gone = await Promise.all(
    linked.map(async (k) => ((await env.OAUTH_KV.get(grantRecordKey(k.grant_id))) === null ? k.key_id : null)),
  );
  for (const keyId of gone) {
    if (keyId === null) continue;
    await deployment.revokeKey(keyId);
    forgetKey(keyId);
    log("info", "oauth grant gone: its key revoked", { key_id: keyId });
  }
}

async function allGrants(oauth: OAuthHelpers): Promise<GrantSummary[]> {
  const out: GrantSummary[] = [];
  let cursor: string | undefined;
  do {
    const page = await oauth.listUserGrants(GRANT_USER, cursor ? { cursor } : {});
    out.push(...page.items);
    cursor = page.cursor;
  } while (cursor);
  return out;
}

async function grantsReplacedBy(oauth: OAuthHelpers, request: AuthRequest): Promise<GrantSummary[]> {
  const byUrl = isMetadataDocumentUrl(request.clientId);
  return (await allGrants(oauth)).filter(
    (g) => g.clientId === request.clientId && (!byUrl || g.redirectUri === request.redirectUri),
  );
}

export function grantView(g: GrantSummary): McpGrantView | null {
  const m = GrantMetadata.safeParse(g.metadata);
  if (!m.success) return null;
  return {
    grant_id: `${GRANT_ID_PREFIX}${g.id}`,
    client_id: g.clientId,
    client_name: m.data.client_name,
    redirect_uri: m.data.redirect_uri,
    key_id: m.data.key_id,
    agents: m.data.agents,
    pools: m.data.pools,
    scopes: m.data.scopes as KeyScope[],
    created_at: g.createdAt * 1000,
    expires_at: g.expiresAt === undefined ? null : g.expiresAt * 1000,
  };
}

/**
 * The grants in force, newest first. A grant whose key was revoked on its own (`edgeloop keys
 * revoke`) is no longer in force, and is not listed.
 */
export async function listGrants(env: Env, oauth: OAuthHelpers): Promise<McpGrantView[]> {
  await followGrants(env);
  const active = new Set((await deploymentOf(env).listKeys()).filter((k) => !k.revoked_at).map((k) => k.key_id));
  return (await allGrants(oauth))
    .map(grantView)
    .filter((g): g is McpGrantView => g !== null && active.has(g.key_id))
    .sort((a, b) => b.created_at - a.created_at);
}

async function revokeGrantKey(env: Env, g: GrantSummary): Promise<void> {
  const view = grantView(g);
  if (!view) return;
  await deploymentOf(env).revokeKey(view.key_id);
  forgetKey(view.key_id);
}

/**
 * Revoke a grant (`grant_<library id>`, as listed): its key first (every isolate refuses it within the trusted copy's bound,
 * docs/architecture.md#trusted-copies; this one at once), then its tokens. Null: no such grant.
 */
export async function revokeGrant(env: Env, oauth: OAuthHelpers, grantId: string): Promise<McpGrantView | null> {
  const id = grantId.slice(GRANT_ID_PREFIX.length);
  const grant = (await allGrants(oauth)).find((g) => g.id === id);
  if (!grant) return null;
  await revokeGrantKey(env, grant);
  await oauth.revokeGrant(id, GRANT_USER);
  return grantView(grant);
}
