import { auth, type OAuthDiscoveryState } from "@modelcontextprotocol/sdk/client/auth.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { guardedFetch } from "../../runtime/guarded-fetch.js";
import { log } from "../../runtime/log.js";
import { type OutboundVars, OutboundVarsSchema, outboundPolicy } from "../../runtime/outbound-settings.js";
import { checkOutboundUrl, type OutboundUrlPolicy } from "../../runtime/outbound-url.js";
import { parseVars } from "../../runtime/vars.js";
import { type McpOAuthConfig, type McpServerConfig, parseMcpServers } from "../conversation/mcp/mcp-servers-config.js";
import { NO_SCHEMA_VALIDATION } from "../conversation/mcp/no-schema-validation.js";
import { expired, expiresAt, REFRESH_AHEAD_MS, tokenDecision } from "./mcp-oauth-expiry.js";
import { type OAuthState, StoredOAuthProvider } from "./mcp-oauth-provider.js";
import { SealingKey } from "./mcp-oauth-sealing.js";
import { type McpAuthVars, McpAuthVarsSchema, MISSING_SECRET } from "./mcp-oauth-settings.js";
import { consentNeeded, errorText, randomToken, UNOPENED } from "./mcp-oauth-text.js";
import {
  CALLBACK_PATH,
  CLIENT_METADATA_PATH,
  type ConnectOutcome,
  type McpServerAuthStatus,
  type TokenOutcome,
} from "./mcp-oauth-types.js";

export type McpAuthEnv = McpAuthVars & OutboundVars & { MCP_SERVERS?: string };

type OAuthServer = McpServerConfig & { oauth: McpOAuthConfig };

/** An authorization URL handed to the admin is good for this long. */
const FLOW_TTL_MS = 30 * 60_000;

/** One server's row. The secret parts of its OAuthState (client, tokens, verifier) are sealed. */
type StoredServer = {
  sealed: string | null;
  discovery: OAuthDiscoveryState | null;
  status: "connecting" | "connected" | "needs_consent";
  detail: string | null;
  expires_at: number | null;
  /** the flow's `state` while connecting: single use */
  state: string | null;
  flow_started_at: number | null;
  redirect_uri: string | null;
  /** the scope a 403 insufficient_scope asked for: the next connect asks for it */
  wanted_scope?: string | null;
  updated_at: number;
};

/**
 * The deployment's OAuth connections to remote MCP servers (MCP_SERVERS entries with `oauth`), a
 * store of the deployment object: a server's tokens belong to the deployment, not to one
 * conversation, and one place renewing them means a rotating refresh token is used once. Every
 * OAuth step is the MCP SDK's (`auth()` over StoredOAuthProvider); this store keeps what the SDK
 * saves between steps in SQLite, sealed, so a connection survives restarts, hibernation and
 * deploys, and runs one step at a time per server. A slow authorization server holds up only its
 * own server's steps: the object serves other calls while a step waits on the network.
 */
export class McpOAuthStore {
  private readonly queues = new Map<string, Promise<unknown>>();
  private sealing: { secret: string; key: Promise<SealingKey> } | null = null;

  constructor(
    private readonly sql: SqlStorage,
    private readonly env: McpAuthEnv,
  ) {
    sql.exec("CREATE TABLE IF NOT EXISTS mcp_oauth (name TEXT PRIMARY KEY, json TEXT NOT NULL)");
  }

  async beginConnect(name: string, workerOrigin: string): Promise<ConnectOutcome> {
    const setup = await this.setup(name);
    if (!setup.ok) return setup;
    const { server, key, outbound } = setup;
    return this.serialized(name, async () => {
      const stored = this.read(name);
      const data = await this.open(name, key, stored);
      const redirect = `${workerOrigin}${CALLBACK_PATH}`;
      // A client registered for another redirect URI cannot finish this flow: register again.
      if (data.client && "redirect_uris" in data.client && !data.client.redirect_uris?.includes(redirect))
        delete data.client;
      const state = randomToken();
      const before = data.tokens;
      const provider = this.provider(server, data, redirect, state);
      // The SDK's transport meets the server's 401 and runs discovery, registration and PKCE from it.
      const transport = new StreamableHTTPClientTransport(new URL(server.url), {
        authProvider: provider,
        requestInit: { headers: server.headers },
        fetch: guardedFetch(outbound),
      });
      const client = new Client({ name: "edgeloop", version: "0.1.0" }, { jsonSchemaValidator: NO_SCHEMA_VALIDATION });
      try {
        if (stored?.wanted_scope) {
          // Step-up: the server wants more scope than the current token has, so ask for it
          // whatever the current token still opens (the SDK's flow, with the scope of the 403).
          delete data.tokens;
          const result = await auth(provider, {
            serverUrl: server.url,
            scope: stored.wanted_scope,
            fetchFn: guardedFetch(outbound),
          });
          if (result === "REDIRECT") throw new Error("authorization needed");
        }
        // Some servers initialize without a token and ask for one only at the first real request.
        await client.connect(transport, { timeout: server.timeout_secs * 1000 });
        await client.listTools(undefined, { timeout: server.timeout_secs * 1000 });
        await client.close().catch(() => undefined);
      } catch (e) {
        await client.close().catch(() => undefined);
        const url = provider.authorizationUrl;
        if (!url) {
          log("warn", "mcp oauth connect failed", { server: name, error: String(e) });
          return {
            ok: false,
            code: 502,
            error: `could not start authorizing with MCP server '${name}': ${errorText(e)}`,
          };
        }
        const target = checkOutboundUrl(url.href, outbound);
        if (!target.ok)
          return { ok: false, code: 502, error: `the authorization URL of '${name}' is refused: ${target.reason}` };
        await this.write(name, key, data, {
          status: "connecting",
          detail: null,
          state,
          flow_started_at: Date.now(),
          redirect_uri: redirect,
          expires_at: stored?.expires_at ?? null,
          wanted_scope: stored?.wanted_scope ?? null,
        });
        return { ok: true, status: "authorize", authorization_url: url.href };
      }
      if (!data.tokens)
        return {
          ok: false,
          code: 400,
          error: `MCP server '${name}' answered without asking for authorization: remove \`oauth\` from its MCP_SERVERS entry`,
        };
      // Authorized without anyone (the stored tokens worked, or were renewed).
      await this.write(name, key, data, {
        status: "connected",
        detail: null,
        state: null,
        flow_started_at: null,
        redirect_uri: stored?.redirect_uri ?? redirect,
        expires_at:
          data.tokens !== before ? expiresAt(data.tokens.expires_in, Date.now()) : (stored?.expires_at ?? null),
      });
      return { ok: true, status: "connected" };
    });
  }

  async finish(
    state: string,
    code: string | null,
    error: string | null,
  ): Promise<{ ok: true; server: string } | { ok: false; error: string }> {
    const name = this.serverWithState(state);
    if (!name)
      return { ok: false, error: "no authorization is waiting for this answer (used already, or never asked)" };
    const setup = await this.setup(name);
    if (!setup.ok) return { ok: false, error: setup.error };
    const { server, key } = setup;
    return this.serialized(name, async () => {
      const stored = this.read(name);
      if (!stored || stored.state !== state) return { ok: false, error: "this authorization was answered already" };
      const data = await this.open(name, key, stored);
      const late = Date.now() - (stored.flow_started_at ?? 0) > FLOW_TTL_MS;
      // The state is single use, whatever happens next.
      const failed = async (detail: string) => {
        await this.write(name, key, data, {
          ...stored,
          status: "needs_consent",
          detail,
          state: null,
          flow_started_at: null,
        });
        return { ok: false as const, error: detail };
      };
      if (late) return failed(`the authorization took longer than ${FLOW_TTL_MS / 60_000} minutes: connect again`);
      if (error || !code) return failed(`the authorization server answered: ${error ?? "no code"}`);
      const redirect = stored.redirect_uri ?? "";
      const provider = this.provider(server, data, redirect, state);
      try {
        const result = await auth(provider, {
          serverUrl: server.url,
          authorizationCode: code,
          fetchFn: guardedFetch(setup.outbound),
        });
        if (result !== "AUTHORIZED" || !data.tokens) return failed("the authorization server gave no token");
      } catch (e) {
        return failed(`the code could not be exchanged for a token: ${errorText(e)}`);
      }
      await this.write(name, key, data, {
        status: "connected",
        detail: null,
        state: null,
        flow_started_at: null,
        redirect_uri: redirect,
        expires_at: expiresAt(data.tokens.expires_in, Date.now()),
        wanted_scope: null,
      });
      log("info", "mcp oauth connected", { server: name });
      return { ok: true, server: name };
    });
  }

  async token(name: string, refused?: string): Promise<TokenOutcome> {
    const setup = await this.setup(name);
    if (!setup.ok) return { ok: false, error: setup.error };
    const { server, key, outbound } = setup;
    return this.serialized(name, async () => {
      const stored = this.read(name);
      const data = await this.open(name, key, stored);
      const current = data.tokens;
      if (!stored || !current) {
        const why = stored?.sealed && !data.opened ? UNOPENED : (stored?.detail ?? "not connected yet");
        return { ok: false, error: consentNeeded(name, why) };
      }
      // Renewed already since the caller read it: hand out the new one.
      const keep = (token: string, expires: number | null): TokenOutcome => ({
        ok: true,
        token,
        expires_at: expires === null ? null : expires - REFRESH_AHEAD_MS,
      });
      if (refused !== undefined && refused !== current.access_token)
        return keep(current.access_token, stored.expires_at);
      const now = Date.now();
      const refusedByServer = refused !== undefined;
      if (tokenDecision(stored.expires_at, now, refusedByServer) === "use")
        return keep(current.access_token, stored.expires_at);
      const provider = this.provider(server, data, stored.redirect_uri ?? "", randomToken());
      let reason = "the authorization server asks for consent again";
      try {
        const result = await auth(provider, { serverUrl: server.url, fetchFn: guardedFetch(outbound) });
        if (result === "AUTHORIZED" && data.tokens && data.tokens !== current) {
          const expires = expiresAt(data.tokens.expires_in, Date.now());
          await this.write(name, key, data, { ...stored, status: "connected", detail: null, expires_at: expires });
          log("info", "mcp oauth token renewed", { server: name });
          return keep(data.tokens.access_token, expires);
        }
      } catch (e) {
        reason = errorText(e);
      }
      // Renewal failed. A token that is still good and that the server did not refuse is used
      // until it lapses (the authorization server may only be down for a moment).
      if (!refusedByServer && !expired(stored.expires_at, now)) {
        log("warn", "mcp oauth renewal failed; the current token is used until it expires", { server: name, reason });
        return { ok: true, token: current.access_token, expires_at: now };
      }
      delete data.tokens;
      const detail = `its token could not be renewed (${reason})`;
      await this.write(name, key, data, { ...stored, status: "needs_consent", detail, expires_at: null });
      log("warn", "mcp oauth needs consent again", { server: name, reason });
      return { ok: false, error: consentNeeded(name, detail) };
    });
  }

  async insufficientScope(name: string, scope: string | undefined): Promise<string> {
    const setup = await this.setup(name);
    if (!setup.ok) return setup.error;
    const { key } = setup;
    return this.serialized(name, async () => {
      const stored = this.read(name);
      const detail = `it asks for the scope '${scope ?? "(unnamed)"}'`;
      if (!stored) return consentNeeded(name, detail);
      const data = await this.open(name, key, stored);
      await this.write(name, key, data, {
        ...stored,
        status: "needs_consent",
        detail,
        wanted_scope: scope ?? null,
      });
      return consentNeeded(name, detail);
    });
  }

  async status(): Promise<McpServerAuthStatus[]> {
    const servers = parseMcpServers(this.env.MCP_SERVERS);
    if (!servers.ok) return [];
    return servers.value
      .filter((s) => s.oauth)
      .map((s) => {
        const stored = this.read(s.name);
        return {
          name: s.name,
          status: stored?.status ?? "not_connected",
          detail: stored?.detail ?? null,
          expires_at: stored?.expires_at ?? null,
          updated_at: stored?.updated_at ?? null,
        };
      });
  }

  // ---- storage -----------------------------------------------------------------------------

  private async setup(
    name: string,
  ): Promise<
    | { ok: true; server: OAuthServer; key: SealingKey; outbound: OutboundUrlPolicy }
    | { ok: false; code: 400 | 404 | 500; error: string }
  > {
    const servers = parseMcpServers(this.env.MCP_SERVERS);
    if (!servers.ok) return { ok: false, code: 500, error: `MCP_SERVERS: ${servers.error}` };
    const server = servers.value.find((s) => s.name === name);
    if (!server) return { ok: false, code: 404, error: `no MCP server '${name}' in MCP_SERVERS` };
    if (!server.oauth)
      return { ok: false, code: 400, error: `MCP server '${name}' has no \`oauth\` section in MCP_SERVERS` };
    const vars = parseVars(McpAuthVarsSchema.extend(OutboundVarsSchema.shape), this.env);
    if (!vars.ok) return { ok: false, code: 500, error: vars.error };
    const secret = vars.value.MCP_OAUTH_SECRET;
    if (!secret) return { ok: false, code: 500, error: MISSING_SECRET };
    const outbound = outboundPolicy(vars.value);
    const url = checkOutboundUrl(server.url, outbound);
    if (!url.ok) return { ok: false, code: 400, error: `MCP server '${name}' refused: ${url.reason}` };
    if (this.sealing?.secret !== secret) this.sealing = { secret, key: SealingKey.fromSecret(secret) };
    return { ok: true, server: { ...server, oauth: server.oauth }, key: await this.sealing.key, outbound };
  }

  private provider(server: OAuthServer, data: OAuthState, redirect: string, state: string): StoredOAuthProvider {
    const origin = redirect ? new URL(redirect).origin : "";
    const metadataUrl =
      server.oauth.client_metadata_url ??
      (origin.startsWith("https:") ? `${origin}${CLIENT_METADATA_PATH}` : undefined);
    return new StoredOAuthProvider(data, server.oauth, redirect, metadataUrl, state);
  }

  private read(name: string): StoredServer | null {
    const row = this.sql.exec<{ json: string }>("SELECT json FROM mcp_oauth WHERE name = ?", name).toArray()[0];
    return row ? (JSON.parse(row.json) as StoredServer) : null;
  }

  private serverWithState(state: string): string | null {
    for (const row of this.sql.exec<{ name: string; json: string }>("SELECT name, json FROM mcp_oauth"))
      if ((JSON.parse(row.json) as StoredServer).state === state) return row.name;
    return null;
  }

  /** The server's OAuthState; a row sealed under another secret opens as nothing (connect again). */
  private async open(name: string, key: SealingKey, stored: StoredServer | null): Promise<OAuthState> {
    const data: OAuthState = {};
    if (stored?.discovery) data.discovery = stored.discovery;
    if (!stored?.sealed) return data;
    const plain = await key.open(stored.sealed, name);
    if (plain === null) {
      log("warn", "mcp oauth state does not open under MCP_OAUTH_SECRET; connect the server again", { server: name });
      return data;
    }
    const secret = JSON.parse(plain) as Omit<OAuthState, "discovery">;
    return { ...data, ...secret, opened: true };
  }

  private async write(
    name: string,
    key: SealingKey,
    data: OAuthState,
    fields: Omit<StoredServer, "sealed" | "discovery" | "updated_at">,
  ): Promise<void> {
    const { discovery, opened: _, ...secret } = data;
    const row: StoredServer = {
      status: fields.status,
      detail: fields.detail,
      expires_at: fields.expires_at,
      state: fields.state,
      flow_started_at: fields.flow_started_at,
      redirect_uri: fields.redirect_uri,
      wanted_scope: fields.wanted_scope ?? null,
      sealed: await key.seal(JSON.stringify(secret), name),
      discovery: discovery ?? null,
      updated_at: Date.now(),
    };
    this.sql.exec(
      "INSERT INTO mcp_oauth (name, json) VALUES (?, ?) ON CONFLICT(name) DO UPDATE SET json = excluded.json",
      name,
      JSON.stringify(row),
    );
  }

  /** One OAuth step at a time per server: a renewal is not raced by another one or by a connect. */
  private serialized<T>(name: string, step: () => Promise<T>): Promise<T> {
    const previous = this.queues.get(name) ?? Promise.resolve();
    const next = previous.then(step, step);
    const settled = next.catch(() => undefined);
    this.queues.set(name, settled);
    void settled.then(() => {
      if (this.queues.get(name) === settled) this.queues.delete(name);
    });
    return next;
  }
}
