/**
 * A key made for an OAuth grant follows its grant (worker/oauth/grant-links.ts): listing the keys
 * revokes one whose grant record the library has removed, and leaves alone one whose grant lives
 * and a key made by hand. The real worker app, deployment object and OAUTH_KV. (The library
 * removing grants by itself — a replayed code, an app revoking its refresh token — is in
 * test/e2e/mcp-oauth.test.ts.)
 */
import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import type { ApiKeyView } from "@edgeloop/protocol/api-keys";
import { describe, expect, it } from "vitest";
import { deploymentOf } from "../../durable-objects/addresses.js";
import { sha256Hex } from "../../runtime/digest.js";
import worker from "../../worker/index.js";
import { grantRecordKey } from "../../worker/oauth/grant-links.js";

async function listedKeys(): Promise<ApiKeyView[]> {
  const ctx = createExecutionContext();
  const req = new Request("https://edgeloop.example/v1/keys", {
    headers: { authorization: `Bearer ${env.ADMIN_TOKEN}` },
  });
  const res = await worker.fetch(req, env, ctx);
  await waitOnExecutionContext(ctx);
  expect(res.status).toBe(200);
  return ((await res.json()) as { keys: ApiKeyView[] }).keys;
}

const newKey = (name: string) =>
  deploymentOf(env).createKey({ name, agents: ["pi-1"], pools: [], scopes: ["mcp", "tools"] });

describe("keys made for OAuth grants", () => {
  it("a key whose grant is gone is revoked when keys are listed; the others stay", async () => {
    const kept = await newKey("mcp: Living App");
    const orphan = await newKey("mcp: Gone App");
    const byHand = await newKey("mcp: made by hand");
    const living = `living${crypto.randomUUID().slice(0, 8)}`;
    await env.OAUTH_KV.put(grantRecordKey(living), JSON.stringify({ id: living }));
    await deploymentOf(env).linkGrantKey(kept.key_id, living);
    await deploymentOf(env).linkGrantKey(orphan.key_id, `gone${crypto.randomUUID().slice(0, 8)}`);

    const keys = await listedKeys();
    const revokedAt = (id: string) => keys.find((k) => k.key_id === id)?.revoked_at;
    expect(revokedAt(orphan.key_id)).toEqual(expect.any(Number));
    expect(revokedAt(kept.key_id)).toBeNull();
    expect(revokedAt(byHand.key_id)).toBeNull();
    expect(await deploymentOf(env).verifyKey(await sha256Hex(orphan.key))).toBeNull();

    // Its grant removed later, the living one follows at the next listing.
    await env.OAUTH_KV.delete(grantRecordKey(living));
    expect((await listedKeys()).find((k) => k.key_id === kept.key_id)?.revoked_at).toEqual(expect.any(Number));
  });
});
