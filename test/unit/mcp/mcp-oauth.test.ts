import { describe, expect, it } from "vitest";
import { parseMcpServers } from "../../../durable-objects/conversation/mcp/mcp-servers-config.js";
import {
  cachedTokens,
  type McpTokens,
  NeedsConsent,
  needsConsent,
  oauthFetch,
} from "../../../durable-objects/conversation/mcp/oauth-fetch.js";
import {
  expired,
  expiresAt,
  REFRESH_AHEAD_MS,
  tokenDecision,
} from "../../../durable-objects/deployment/mcp-oauth-expiry.js";
import { StoredOAuthProvider } from "../../../durable-objects/deployment/mcp-oauth-provider.js";
import { SealingKey } from "../../../durable-objects/deployment/mcp-oauth-sealing.js";
import { McpAuthVarsSchema } from "../../../durable-objects/deployment/mcp-oauth-settings.js";

describe("sealing a remote MCP server's OAuth state (MCP_OAUTH_SECRET)", () => {
  const tokens = JSON.stringify({ tokens: { access_token: "at-1", refresh_token: "rt-1", token_type: "Bearer" } });

  it("opens what it sealed, and the sealed text shows none of it", async () => {
    const key = await SealingKey.fromSecret("a secret of sixteen+ characters");
    const sealed = await key.seal(tokens, "github");
    expect(sealed).toMatch(/^v1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(sealed).not.toContain("at-1");
    expect(sealed).not.toContain("rt-1");
    expect(await key.open(sealed, "github")).toBe(tokens);
  });

  it("seals the same text differently each time (a fresh IV)", async () => {
    const key = await SealingKey.fromSecret("a secret of sixteen+ characters");
    expect(await key.seal(tokens, "github")).not.toBe(await key.seal(tokens, "github"));
  });

  it("does not open under another secret, another server's name, or after a change", async () => {
    const key = await SealingKey.fromSecret("a secret of sixteen+ characters");
    const other = await SealingKey.fromSecret("another secret, also long enough");
    const sealed = await key.seal(tokens, "github");
    expect(await other.open(sealed, "github")).toBeNull();
    expect(await key.open(sealed, "sentry")).toBeNull();
    const [v, iv, data] = sealed.split(".");
    const flipped = `${v}.${iv}.${data!.slice(0, -2)}${data!.endsWith("AA") ? "AB" : "AA"}`;
    expect(await key.open(flipped, "github")).toBeNull();
    expect(await key.open("plain text", "github")).toBeNull();
  });
});

describe("when a server's access token is renewed", () => {
  const now = 1_000_000_000;

  it("reads expires_in (seconds) from when the token came; none or nonsense means no known expiry", () => {
    expect(expiresAt(3600, now)).toBe(now + 3_600_000);
    expect(expiresAt(undefined, now)).toBeNull();
    expect(expiresAt(0, now)).toBeNull();
    expect(expiresAt(Number.NaN, now)).toBeNull();
  });

  it("ahead of expiry, or as soon as the server refuses it; a token without expiry until refused", () => {
    const expires = now + REFRESH_AHEAD_MS + 1;
    expect(tokenDecision(expires, now, false)).toBe("use");
    expect(tokenDecision(expires, now + 1, false)).toBe("refresh");
    expect(tokenDecision(expires, now, true)).toBe("refresh");
    expect(tokenDecision(null, now, false)).toBe("use");
    expect(tokenDecision(null, now, true)).toBe("refresh");
  });

  it("a token due for renewal is still usable until it expires", () => {
    expect(expired(now + 1, now)).toBe(false);
    expect(expired(now, now)).toBe(true);
    expect(expired(null, now)).toBe(false);
  });
});

describe("MCP_SERVERS entries with oauth", () => {
  it("reads `oauth: {}` (discover and register) and a client registered by hand", () => {
    const parsed = parseMcpServers(
      JSON.stringify([
        { name: "gh", url: "https://mcp.example.com/mcp", oauth: {} },
        { name: "sn", url: "https://s.example.com/mcp", oauth: { client_id: "c", client_secret: "s", scope: "read" } },
      ]),
    );
    expect(parsed.ok && parsed.value.map((s) => s.oauth)).toEqual([
      {},
      { client_id: "c", client_secret: "s", scope: "read" },
    ]);
  });

  it("refuses oauth beside a bearer token or an Authorization header, a secret without an id, unknown fields", () => {
    const errorOf = (entry: object) => {
      const parsed = parseMcpServers(JSON.stringify([{ name: "gh", url: "https://x.example/mcp", ...entry }]));
      return parsed.ok ? "" : parsed.error;
    };
    expect(errorOf({ oauth: {}, bearer: "t" })).toMatch(/\[0\]\.oauth: oauth and a bearer token/);
    expect(errorOf({ oauth: {}, headers: { Authorization: "Bearer t" } })).toMatch(/\[0\]\.oauth:/);
    expect(errorOf({ oauth: { client_secret: "s" } })).toMatch(
      /\[0\]\.oauth\.client_secret: client_secret needs client_id/,
    );
    expect(errorOf({ oauth: { client: "x" } })).toMatch(/\[0\]\.oauth/);
  });

  it("MCP_OAUTH_SECRET is optional, and at least 16 characters when set", () => {
    expect(McpAuthVarsSchema.safeParse({}).success).toBe(true);
    expect(McpAuthVarsSchema.safeParse({ MCP_OAUTH_SECRET: "short" }).success).toBe(false);
    expect(McpAuthVarsSchema.safeParse({ MCP_OAUTH_SECRET: "x".repeat(16) }).success).toBe(true);
  });
});

describe("StoredOAuthProvider, the SDK's provider over what the McpAuthDO stores", () => {
  const redirect = "https://edgeloop.example/v1/mcp-oauth/callback";

  it("keeps what the SDK saves in its state, and captures the authorization URL for the admin", () => {
    const data = {};
    const p = new StoredOAuthProvider(data, {}, redirect, undefined, "st");
    p.saveClientInformation({ client_id: "dyn" });
    p.saveTokens({ access_token: "a", token_type: "Bearer" });
    p.saveCodeVerifier("v");
    p.redirectToAuthorization(new URL("https://as.example/authorize?x=1"));
    expect(data).toEqual({
      client: { client_id: "dyn" },
      tokens: { access_token: "a", token_type: "Bearer" },
      verifier: "v",
    });
    expect(p.authorizationUrl?.href).toBe("https://as.example/authorize?x=1");
    expect(p.state()).toBe("st");
    expect(p.clientMetadata.redirect_uris).toEqual([redirect]);
    p.invalidateCredentials("tokens");
    expect(p.tokens()).toBeUndefined();
    expect(p.clientInformation()).toEqual({ client_id: "dyn" });
  });

  it("a client registered by hand is offered as it is and never replaced by a registration", () => {
    const data = {};
    const p = new StoredOAuthProvider(data, { client_id: "pre", client_secret: "sec" }, redirect, undefined, "st");
    p.saveClientInformation({ client_id: "dyn" });
    expect(p.clientInformation()).toEqual({ client_id: "pre", client_secret: "sec" });
    expect(data).toEqual({});
  });

  it("without a verifier there is no flow to finish", () => {
    const p = new StoredOAuthProvider({}, {}, redirect, undefined, "st");
    expect(() => p.codeVerifier()).toThrow(/no authorization is under way/);
  });
});

describe("a conversation's requests to a server with oauth (oauth-fetch.ts)", () => {
  type Asked = { server: string; refused?: string };
  function source(
    answers: Array<{ ok: true; token: string; expires_at: number | null } | { ok: false; error: string }>,
  ) {
    const asked: Asked[] = [];
    const tokens: McpTokens = {
      token: async (server, refused) => {
        asked.push(refused === undefined ? { server } : { server, refused });
        return answers.shift() ?? { ok: false, error: "no more" };
      },
      insufficientScope: async (server, scope) => `'${server}' asks for '${scope}'`,
    };
    return { tokens, asked };
  }
  const respond = (statuses: Array<[number, Record<string, string>?]>) => {
    const seen: string[] = [];
    const fetch = async (_url: string | URL, init?: RequestInit) => {
      seen.push(new Headers(init?.headers).get("authorization") ?? "");
      const [status, headers] = statuses.shift() ?? [200];
      return new Response(status === 200 ? "{}" : null, { status, headers });
    };
    return { fetch, seen };
  };

  it("sends the deployment's token, and keeps it until the deployment said to ask again", async () => {
    let now = 0;
    const { tokens, asked } = source([
      { ok: true, token: "t1", expires_at: 100 },
      { ok: true, token: "t2", expires_at: null },
    ]);
    const cached = cachedTokens(tokens, () => now);
    const { fetch, seen } = respond([[200], [200], [200]]);
    const f = oauthFetch("gh", cached, fetch);
    await f("https://x/mcp");
    await f("https://x/mcp");
    now = 100;
    await f("https://x/mcp");
    expect(seen).toEqual(["Bearer t1", "Bearer t1", "Bearer t2"]);
    expect(asked).toEqual([{ server: "gh" }, { server: "gh" }]);
  });

  it("a 401 hands the refused token back for a renewed one, and the request is sent again once", async () => {
    const { tokens, asked } = source([
      { ok: true, token: "old", expires_at: null },
      { ok: true, token: "new", expires_at: null },
    ]);
    const { fetch, seen } = respond([[401], [200]]);
    const res = await oauthFetch("gh", cachedTokens(tokens), fetch)("https://x/mcp", { method: "POST", body: "{}" });
    expect(res.status).toBe(200);
    expect(seen).toEqual(["Bearer old", "Bearer new"]);
    expect(asked).toEqual([{ server: "gh" }, { server: "gh", refused: "old" }]);
  });

  it("ends with NeedsConsent, naming what the admin runs, when no token can be had", async () => {
    const { tokens } = source([
      { ok: true, token: "old", expires_at: null },
      { ok: false, error: "MCP server 'gh' needs an admin … run `edgeloop mcp connect gh`" },
    ]);
    const { fetch } = respond([[401]]);
    const err = await oauthFetch("gh", tokens, fetch)("https://x/mcp").catch((e) => e);
    expect(err).toBeInstanceOf(NeedsConsent);
    expect(needsConsent(new Error("wrapped", { cause: err }))).toBe(err);
    expect((err as Error).message).toMatch(/edgeloop mcp connect gh/);
  });

  it("a 403 insufficient_scope records the scope asked for and ends with NeedsConsent", async () => {
    const { tokens } = source([{ ok: true, token: "t", expires_at: null }]);
    const { fetch } = respond([[403, { "www-authenticate": 'Bearer error="insufficient_scope", scope="read write"' }]]);
    const err = await oauthFetch("gh", tokens, fetch)("https://x/mcp").catch((e) => e);
    expect(err).toBeInstanceOf(NeedsConsent);
    expect((err as Error).message).toBe("'gh' asks for 'read write'");
  });
});
