import { extractWWWAuthenticateParams } from "@modelcontextprotocol/sdk/client/auth.js";
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";

/**
 * Requests to a remote MCP server that needs OAuth (an MCP_SERVERS entry with `oauth`) carry the
 * deployment's access token for it, which the McpAuthDO keeps and renews (ahead of expiry, or
 * when the server refuses it): a conversation never runs an OAuth step itself, so a rotating
 * refresh token is used once however many conversations call the server. A server that still
 * refuses, or asks for more scope, ends the call with NeedsConsent, which names what the admin runs.
 */
export type McpTokens = {
  /** `expires_at`: until when the token may be kept without asking again (null: until refused) */
  token(
    server: string,
    refused?: string,
  ): Promise<{ ok: true; token: string; expires_at: number | null } | { ok: false; error: string }>;
  /** The server answered 403 insufficient_scope: the next connect asks for `scope`. */
  insufficientScope(server: string, scope: string | undefined): Promise<string>;
};

export class NeedsConsent extends Error {
  override readonly name = "NeedsConsent";
}

export function oauthFetch(server: string, tokens: McpTokens, inner: FetchLike): FetchLike {
  return async (input, init) => {
    const first = await tokens.token(server);
    if (!first.ok) throw new NeedsConsent(first.error);
    let res = await inner(input, withBearer(init, first.token));
    let sent = first.token;
    if (res.status === 401) {
      await res.body?.cancel();
      const renewed = await tokens.token(server, first.token);
      if (!renewed.ok) throw new NeedsConsent(renewed.error);
      res = await inner(input, withBearer(init, renewed.token));
      sent = renewed.token;
      if (res.status === 401) {
        await res.body?.cancel();
        // The renewed token is refused too: the DO renews once more or asks for consent.
        const last = await tokens.token(server, sent);
        throw new NeedsConsent(last.ok ? `MCP server '${server}' refused a fresh token` : last.error);
      }
    }
    if (res.status === 403) {
      const { error, scope } = extractWWWAuthenticateParams(res);
      if (error === "insufficient_scope") {
        await res.body?.cancel();
        throw new NeedsConsent(await tokens.insufficientScope(server, scope));
      }
    }
    return res;
  };
}

/**
 * The deployment's tokens as a conversation keeps them between requests: asked for once and kept
 * until the deployment object said to ask again, or until a server refuses one, so a tool round
 * does not call the control plane per request (docs/architecture.md#the-control-plane).
 */
export function cachedTokens(source: McpTokens, now: () => number = Date.now): McpTokens {
  const kept = new Map<string, { token: string; until: number | null }>();
  return {
    async token(server, refused) {
      const have = kept.get(server);
      if (refused === undefined && have && (have.until === null || now() < have.until))
        return { ok: true, token: have.token, expires_at: have.until };
      kept.delete(server);
      const got = await source.token(server, refused);
      if (got.ok) kept.set(server, { token: got.token, until: got.expires_at });
      return got;
    },
    async insufficientScope(server, scope) {
      kept.delete(server);
      return source.insufficientScope(server, scope);
    },
  };
}

function withBearer(init: RequestInit | undefined, token: string): RequestInit {
  const headers = new Headers(init?.headers);
  headers.set("authorization", `Bearer ${token}`);
  return { ...init, headers };
}

/** The NeedsConsent an error is or wraps (the SDK passes a fetch's error on as a cause or as it is). */
export function needsConsent(e: unknown): NeedsConsent | null {
  for (let cause = e, depth = 0; cause instanceof Error && depth < 4; cause = cause.cause, depth++)
    if (cause instanceof NeedsConsent) return cause;
  return null;
}
