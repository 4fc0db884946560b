/**
 * Fetching an app's client ID metadata document and handing it to the OAuth library, over the real
 * OAUTH_KV binding and the real library: what the outbound rule refuses is never fetched, redirects
 * are not followed, the size bound holds, a fresh document is not fetched again, and the record
 * written is one the library's own lookup returns. (The whole flow, with an MCP client and the
 * consent page, is test/e2e/mcp-oauth-cimd.test.ts.)
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { authorizationServerFor } from "../../worker/oauth/authorization-server.js";
import { resolveMetadataClient } from "../../worker/oauth/metadata-clients.js";

const PUBLIC = { allowPrivate: false };
const LOCAL = { allowPrivate: true };

const documentFor = (clientId: string, fields: Record<string, unknown> = {}) =>
  JSON.stringify({ client_id: clientId, client_name: "Doc App", redirect_uris: ["https://app.example/cb"], ...fields });

/** A stand-in for the app's host: answers `respond` and records what was asked. */
function host(respond: (url: string) => Response) {
  const asked: string[] = [];
  const fetchImpl = (async (input: RequestInfo | URL) => {
    asked.push(String(input));
    return respond(String(input));
  }) as typeof fetch;
  return { asked, fetchImpl };
}

const unique = (base: string) => `${base}/${crypto.randomUUID()}/client.json`;
const lookup = (clientId: string) =>
  authorizationServerFor("https://edgeloop.example").getOAuthApi(env).lookupClient(clientId);

describe("resolving a client ID metadata document", () => {
  it("stores the client the document describes where the library looks it up", async () => {
    const id = unique("https://app.example");
    const { asked, fetchImpl } = host((u) => new Response(documentFor(u)));
    expect(await resolveMetadataClient(env, PUBLIC, id, fetchImpl)).toEqual({ ok: true });
    expect(asked).toEqual([id]);
    expect(await lookup(id)).toMatchObject({
      clientId: id,
      clientName: "Doc App",
      redirectUris: ["https://app.example/cb"],
      tokenEndpointAuthMethod: "none",
    });
  });

  it("never fetches a URL the outbound rule refuses, unless ALLOW_PRIVATE_OUTBOUND", async () => {
    for (const base of ["https://127.0.0.1:8443", "https://169.254.169.254", "https://metadata.google.internal"]) {
      const id = unique(base);
      const { asked, fetchImpl } = host((u) => new Response(documentFor(u)));
      const refused = await resolveMetadataClient(env, PUBLIC, id, fetchImpl);
      expect(refused.ok).toBe(false);
      expect(!refused.ok && refused.reason).toMatch(/is not a public address/);
      expect(asked).toEqual([]);
      expect(await lookup(id)).toBeNull();
    }
    const id = unique("https://127.0.0.1:8443");
    const { asked, fetchImpl } = host((u) => new Response(documentFor(u)));
    expect(await resolveMetadataClient(env, LOCAL, id, fetchImpl)).toEqual({ ok: true });
    expect(asked).toEqual([id]);
  });

  it("follows no redirect: the document lives at its own URL", async () => {
    const id = unique("https://app.example");
    const { asked, fetchImpl } = host(
      () => new Response(null, { status: 302, headers: { location: "https://elsewhere.example/c.json" } }),
    );
    expect(await resolveMetadataClient(env, PUBLIC, id, fetchImpl)).toEqual({
      ok: false,
      reason: "the document's URL answered HTTP 302",
    });
    expect(asked).toEqual([id]);
  });

  it("refuses a document over 5 KB and one the rules refuse, and stores neither", async () => {
    const big = unique("https://app.example");
    const large = host((u) => new Response(documentFor(u, { padding: "x".repeat(6000) })));
    expect(await resolveMetadataClient(env, PUBLIC, big, large.fetchImpl)).toEqual({
      ok: false,
      reason: "the document is larger than 5120 bytes",
    });
    expect(await lookup(big)).toBeNull();
    const other = unique("https://app.example");
    const lying = host(() => new Response(documentFor("https://evil.example/c.json")));
    const refused = await resolveMetadataClient(env, PUBLIC, other, lying.fetchImpl);
    expect(!refused.ok && refused.reason).toMatch(/not the URL it was fetched from/);
    expect(await lookup(other)).toBeNull();
  });

  it("uses a document again without fetching while its Cache-Control allows, and fetches every time without one", async () => {
    const cached = unique("https://app.example");
    const withAge = host((u) => new Response(documentFor(u), { headers: { "cache-control": "max-age=600" } }));
    await resolveMetadataClient(env, PUBLIC, cached, withAge.fetchImpl);
    await resolveMetadataClient(env, PUBLIC, cached, withAge.fetchImpl);
    expect(withAge.asked).toHaveLength(1);

    const uncached = unique("https://app.example");
    let name = "First Name";
    const changing = host((u) => new Response(documentFor(u, { client_name: name })));
    await resolveMetadataClient(env, PUBLIC, uncached, changing.fetchImpl);
    name = "Second Name";
    await resolveMetadataClient(env, PUBLIC, uncached, changing.fetchImpl);
    expect(changing.asked).toHaveLength(2);
    expect((await lookup(uncached))?.clientName).toBe("Second Name");
  });

  it("keeps an earlier record when the app's host is down, so its grants go on refreshing", async () => {
    const id = unique("https://app.example");
    let up = true;
    const flaky = host((u) => (up ? new Response(documentFor(u)) : new Response("down", { status: 503 })));
    await resolveMetadataClient(env, PUBLIC, id, flaky.fetchImpl);
    up = false;
    expect(await resolveMetadataClient(env, PUBLIC, id, flaky.fetchImpl)).toEqual({
      ok: false,
      reason: "the document's URL answered HTTP 503",
    });
    expect((await lookup(id))?.clientName).toBe("Doc App");
  });
});
