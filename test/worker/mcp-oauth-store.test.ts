/**
 * The deployment's store of remote MCP servers' OAuth state, over a real object's SQLite: what an
 * admin is told when a setting is missing or a name is wrong, and what a conversation is told
 * before a server was connected. (The whole flow against a server is in
 * test/e2e/mcp-remote-oauth.test.ts and the conformance suite's scenarios.)
 */
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { SealingKey } from "../../durable-objects/deployment/mcp-oauth-sealing.js";
import { type McpAuthEnv, McpOAuthStore } from "../../durable-objects/deployment/mcp-oauth-store.js";

const SERVERS = JSON.stringify([
  { name: "tracker", url: "https://mcp.tracker.example/mcp", oauth: {} },
  { name: "plain", url: "https://mcp.plain.example/mcp", bearer: "t" },
]);
const SECRET = "a secret of sixteen characters or more";

async function withStore(vars: McpAuthEnv, fn: (store: McpOAuthStore) => Promise<void>): Promise<void> {
  const stub = env.DEPLOYMENT.get(env.DEPLOYMENT.idFromName(`mcp-oauth-${crypto.randomUUID()}`));
  await runInDurableObject(stub, async (_o, state) => fn(new McpOAuthStore(state.storage.sql, vars)));
}

describe("McpOAuthStore", () => {
  it("without MCP_OAUTH_SECRET, connecting says which setting to set and how", async () => {
    await withStore({ MCP_SERVERS: SERVERS }, async (store) => {
      const outcome = await store.beginConnect("tracker", "https://edgeloop.example");
      expect(outcome).toMatchObject({ ok: false, code: 500 });
      expect(!outcome.ok && outcome.error).toMatch(
        /MCP_OAUTH_SECRET is not set: set it \(`wrangler secret put MCP_OAUTH_SECRET`/,
      );
      expect(await store.token("tracker")).toMatchObject({
        ok: false,
        error: expect.stringContaining("MCP_OAUTH_SECRET"),
      });
    });
  });

  it("refuses a name not in MCP_SERVERS (404) and a server without `oauth` (400)", async () => {
    await withStore({ MCP_SERVERS: SERVERS, MCP_OAUTH_SECRET: SECRET }, async (store) => {
      expect(await store.beginConnect("nope", "https://edgeloop.example")).toMatchObject({ ok: false, code: 404 });
      const plain = await store.beginConnect("plain", "https://edgeloop.example");
      expect(plain).toMatchObject({ ok: false, code: 400 });
      expect(!plain.ok && plain.error).toContain("has no `oauth` section");
    });
  });

  it("refuses a server the outbound rule refuses, before any request", async () => {
    const local = JSON.stringify([{ name: "local", url: "http://127.0.0.1:9/mcp", oauth: {} }]);
    await withStore({ MCP_SERVERS: local, MCP_OAUTH_SECRET: SECRET }, async (store) => {
      const outcome = await store.beginConnect("local", "https://edgeloop.example");
      expect(outcome).toMatchObject({ ok: false, code: 400 });
      expect(!outcome.ok && outcome.error).toContain("refused");
    });
  });

  it("before a connect: listed as not connected, and a conversation is told to run the connect", async () => {
    await withStore({ MCP_SERVERS: SERVERS, MCP_OAUTH_SECRET: SECRET }, async (store) => {
      expect(await store.status()).toEqual([
        { name: "tracker", status: "not_connected", detail: null, expires_at: null, updated_at: null },
      ]);
      const token = await store.token("tracker");
      expect(token).toMatchObject({ ok: false });
      expect(!token.ok && token.error).toContain("run `edgeloop mcp connect tracker`");
    });
  });

  it("a callback nobody asked for finds no flow", async () => {
    await withStore({ MCP_SERVERS: SERVERS, MCP_OAUTH_SECRET: SECRET }, async (store) => {
      expect(await store.finish("forged", "code", null)).toMatchObject({
        ok: false,
        error: expect.stringContaining("no authorization is waiting"),
      });
    });
  });
});

describe("McpOAuthStore after MCP_OAUTH_SECRET changed", () => {
  it("state sealed under the old secret does not open: the server needs connecting again, and says why", async () => {
    const stub = env.DEPLOYMENT.get(env.DEPLOYMENT.idFromName(`mcp-oauth-${crypto.randomUUID()}`));
    await runInDurableObject(stub, async (_o, state) => {
      const sql = state.storage.sql;
      const before = new McpOAuthStore(sql, { MCP_SERVERS: SERVERS, MCP_OAUTH_SECRET: SECRET });
      // A connected server's row, as the store writes it, sealed under the secret of before.
      const old = await SealingKey.fromSecret(SECRET);
      const sealed = await old.seal(
        JSON.stringify({ tokens: { access_token: "at", token_type: "Bearer" } }),
        "tracker",
      );
      const row = { sealed, discovery: null, status: "connected", detail: null, expires_at: null, state: null };
      sql.exec("INSERT INTO mcp_oauth (name, json) VALUES (?, ?)", "tracker", JSON.stringify(row));
      expect(await before.token("tracker")).toMatchObject({ ok: true, token: "at" });

      const after = new McpOAuthStore(sql, {
        MCP_SERVERS: SERVERS,
        MCP_OAUTH_SECRET: "another secret, also long enough",
      });
      const token = await after.token("tracker");
      expect(token).toMatchObject({ ok: false });
      expect(!token.ok && token.error).toContain("do not open under the current MCP_OAUTH_SECRET");
      expect(!token.ok && token.error).toContain("run `edgeloop mcp connect tracker`");
    });
  });
});
