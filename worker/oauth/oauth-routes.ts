import { AuthorizationError } from "@cloudflare/workers-oauth-provider";
import { type Context, Hono } from "hono";
import { createMiddleware } from "hono/factory";
import { registryOf } from "../../durable-objects/addresses.js";
import { log } from "../../runtime/log.js";
import { outboundPolicy } from "../../runtime/outbound-settings.js";
import { consentErrorPage, consentPage } from "../dashboard/consent-page.js";
import { loginPage } from "../dashboard/login-page.js";
import { DASHBOARD_CSP, pageHeaders } from "../dashboard/security-headers.js";
import type { AppEnv } from "../env.js";
import { countRejection, countRejections } from "../middleware/count-rejections.js";
import { sessionOf, verifySession } from "../middleware/dashboard-session.js";
import { notConfigured } from "../missing-settings.js";
import { authorizationServerFor, oauthNotConfigured } from "./authorization-server.js";
import { isMetadataDocumentUrl } from "./client-metadata-document.js";
import { ConsentForm, grantFromForm, keyNameFor } from "./consent-form.js";
import { approveGrant } from "./grants.js";
import { fetchMetadataClient, metadataClientIsFresh } from "./metadata-clients.js";
import { AUTHORIZE_PATH, REGISTER_PATH, RESOURCE_METADATA_PATH, resourceMetadata, TOKEN_PATH } from "./oauth-names.js";
import { admitRegistration, tooManyRegistrations } from "./registration-limit.js";

/**
 * The OAuth endpoints (docs/mcp.md#add-the-fleet-to-claude-or-chatgpt):
 *
 *   GET  /.well-known/oauth-protected-resource/mcp   RFC 9728 metadata of /mcp
 *   GET  /.well-known/oauth-authorization-server     RFC 8414 metadata (the library's, saying it takes
 *                                                    client ID metadata documents: metadata-clients.ts)
 *   POST /oauth/register                             RFC 7591 dynamic client registration (the library's)
 *   POST /oauth/token                                codes, refresh tokens, RFC 7009 revocation (the library's)
 *   GET  /oauth/authorize                            the consent page, behind the dashboard login
 *   POST /oauth/authorize                            the admin's answer
 *
 * Every refusal is counted (count-rejections.ts) under the path and the OAuth error code.
 */
export const oauth = new Hono<AppEnv>();

const origin = (c: Context) => new URL(c.req.url).origin;

/** Mounted at the root beside the dashboard, so each route names the binding it needs. */
const needKv = createMiddleware<AppEnv>(async (c, next) => (c.env.OAUTH_KV ? next() : oauthNotConfigured()));

oauth.get(RESOURCE_METADATA_PATH, needKv, (c) =>
  c.json(resourceMetadata(origin(c)), 200, { "cache-control": "max-age=300" }),
);
// The metadata of the resource at the root is not served: /mcp is the only protected resource.

// `as never`: the library is typed against a newer ExecutionContext than the project's workers-types.
const library = (c: Context<AppEnv>) =>
  authorizationServerFor(origin(c)).fetch(c.req.raw, c.env, c.executionCtx as never);
oauth.get("/.well-known/oauth-authorization-server", needKv, async (c) => {
  // The library says `false` while its own document fetching is off; edgeloop fetches them itself.
  const res = await library(c);
  if (res.status !== 200) return res;
  const metadata = (await res.json()) as Record<string, unknown>;
  return new Response(JSON.stringify({ ...metadata, client_id_metadata_document_supported: true }), {
    status: 200,
    headers: res.headers,
  });
});
/** Registration takes a token from the caller address's bucket (registration-limit.ts); a preflight does not. */
const limitRegistrations = createMiddleware<AppEnv>(async (c, next) => {
  if (c.req.method !== "POST") return next();
  const admitted = await admitRegistration(c);
  return admitted.ok ? next() : tooManyRegistrations(admitted);
});
oauth.on(["POST", "OPTIONS"], REGISTER_PATH, countRejections(REGISTER_PATH), needKv, limitRegistrations, library);
oauth.on(["POST", "OPTIONS"], TOKEN_PATH, countRejections(TOKEN_PATH), needKv, library);

type PageStatus = 200 | 400 | 401 | 403 | 429;

function html(body: string, status: PageStatus = 200, formTarget?: string): Response {
  const headers = pageHeaders("text/html; charset=utf-8");
  // The form's answer redirects to the client: a browser holds a redirect after a form post to the
  // form's CSP form-action, so the client's redirect origin is allowed there, and only it.
  if (formTarget)
    headers["content-security-policy"] = DASHBOARD_CSP.replace(
      "form-action 'self'",
      `form-action 'self' ${formTarget}`,
    );
  return new Response(body, { status, headers });
}

/** A refused consent request: shown and counted, never redirected. */
async function refused(
  c: Context<AppEnv>,
  status: Exclude<PageStatus, 200>,
  code: string,
  message: string,
  errors: string[] = [],
) {
  await countRejection(c, `${AUTHORIZE_PATH} ${status} ${code}`);
  return html(consentErrorPage(message, errors), status);
}

/** The admin's session, or a response: without ADMIN_TOKEN there is no one to consent. */
async function needSession(c: Context<AppEnv>): Promise<Response | null> {
  const admin = c.var.config.ADMIN_TOKEN;
  if (!admin) return notConfigured(c.var.config, c.env, "ADMIN_TOKEN");
  if (await verifySession(admin, sessionOf(c))) return null;
  if (c.req.method !== "GET")
    return refused(c, 401, "login_required", "Your dashboard session has expired; log in and connect again.");
  // Log in first, then come back to this very request.
  const url = new URL(c.req.url);
  return html(loginPage(undefined, `${url.pathname}${url.search}`), 401);
}

async function choices(c: Context<AppEnv>) {
  const devices = await registryOf(c.env).list();
  return {
    devices: devices.map((d) => ({ agent_id: d.agent_id, online: d.online })),
    pools: [...c.var.config.POOLS.keys()],
  };
}

/** Library refusals: a redirect back to the client only when the library says it is safe. */
async function authorizationFailure(c: Context<AppEnv>, error: unknown): Promise<Response> {
  if (error instanceof AuthorizationError) {
    if (error.redirectTo) {
      await countRejection(c, `${AUTHORIZE_PATH} 302 ${error.code}`);
      return Response.redirect(error.redirectTo, 302);
    }
    return refused(c, 400, error.code, error.description);
  }
  throw error;
}

oauth.get(AUTHORIZE_PATH, needKv, async (c) => {
  const api = authorizationServerFor(origin(c)).getOAuthApi(c.env);
  // An app named by the URL of its metadata document: fetched unless still fresh, before the library reads it.
  const clientId = c.req.query("client_id") ?? "";
  const byUrl = isMetadataDocumentUrl(clientId);
  if (byUrl && !(await metadataClientIsFresh(c.env, clientId))) {
    // Fetching a document registers the app as POST /oauth/register does: the same bucket.
    const admitted = await admitRegistration(c);
    if (!admitted.ok) {
      const page = await refused(c, 429, "too_many_registrations", "Too many new apps from your address.", [
        `Try again in ${admitted.retry_after_s} s.`,
      ]);
      page.headers.set("retry-after", String(admitted.retry_after_s));
      return page;
    }
    const resolved = await fetchMetadataClient(c.env, outboundPolicy(c.var.config), clientId);
    if (!resolved.ok) {
      log("info", "client metadata document refused", { client_id: clientId, reason: resolved.reason });
      return refused(c, 400, "invalid_client", "This app's metadata document could not be used.", [resolved.reason]);
    }
  }
  try {
    // Validate first: a forged request is refused before anyone is asked to log in.
    const request = await api.parseAuthRequest(c.req.raw);
    const login = await needSession(c);
    if (login) return login;
    const described = await api.describeConsent(request);
    // The library names the domain only when it fetched the document itself; here edgeloop did.
    const details = byUrl ? { ...described, clientDomain: new URL(clientId).hostname } : described;
    const consent = await api.beginConsent(request);
    const res = html(consentPage(details, consent.handle, await choices(c)), 200, new URL(details.redirectUri).origin);
    for (const [k, v] of consent.headers) if (k.toLowerCase() === "set-cookie") res.headers.append(k, v);
    return res;
  } catch (error) {
    return authorizationFailure(c, error);
  }
});

oauth.post(AUTHORIZE_PATH, needKv, async (c) => {
  const login = await needSession(c);
  if (login) return login;
  // As for the login (routes/dashboard.ts): the page's no-referrer policy makes its own posts `null`.
  const from = c.req.header("origin");
  if (from !== undefined && from !== "null" && from !== origin(c))
    return refused(c, 403, "cross_origin", "A consent form from another site was refused.");
  const form = ConsentForm.safeParse(await c.req.parseBody({ all: true }).catch(() => ({})));
  if (!form.success) return refused(c, 400, "invalid_request", "The consent form was incomplete.");
  const api = authorizationServerFor(origin(c)).getOAuthApi(c.env);
  try {
    if (form.data.decision === "deny") {
      const denied = await api.denyConsent(c.req.raw, form.data.handle);
      return new Response(null, { status: 302, headers: denied.headers });
    }
    const grant = grantFromForm(form.data, new Set(c.var.config.POOLS.keys()));
    if (!grant.ok) return refused(c, 400, "invalid_grant_choice", "Choose what the app may reach:", grant.errors);
    const approved = await api.approveConsent(c.req.raw, form.data.handle, { scope: grant.grant.scopes });
    // The client's name as the library stored it at registration, never from the form.
    const client = await api.lookupClient(approved.request.clientId);
    const clientName = client?.clientName?.trim() || approved.request.clientId;
    const named = { ...grant.grant, name: keyNameFor(clientName) };
    const redirectTo = await approveGrant(c.env, api, approved.request, clientName, named);
    approved.headers.set("location", redirectTo);
    return new Response(null, { status: 302, headers: approved.headers });
  } catch (error) {
    return authorizationFailure(c, error);
  }
});
