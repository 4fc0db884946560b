/**
 * `wrangler dev` as a new user types it: no `--local`, no stored Cloudflare login (HOME and the
 * config dir are empty), no network beyond loopback. A message completes with an
 * OpenAI-compatible model; asking for Workers AI without its environment fails saying what to do.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startScriptedLlm } from "../../scripted-llm/server.js";
import { sendMessage } from "../helpers/api.js";
import { type LocalWorker, startLocalWorker } from "../helpers/local-worker.js";
import { tempDir } from "../helpers/temp-dir.js";

let llm: Awaited<ReturnType<typeof startScriptedLlm>>;
let worker: LocalWorker;

/** No credentials anywhere wrangler looks for them. */
function loggedOut(): Record<string, string> {
  const home = tempDir("edgeloop-empty-home-");
  return { HOME: home, XDG_CONFIG_HOME: `${home}/.config`, CLOUDFLARE_API_TOKEN: "", CLOUDFLARE_API_KEY: "" };
}

beforeAll(async () => {
  llm = await startScriptedLlm({
    port: 0,
    rules: [{ match: "hello", turns: [{ content: "Hello from the scripted model." }] }],
  });
  worker = await startLocalWorker({
    vars: { LLM_PROVIDER: "openai", OPENAI_BASE_URL: llm.url, LLM_MODEL: "scripted", DEVICE_TOKENS: "pi-x:t" },
    env: loggedOut(),
    // The repository's own config, bundled at start as a user's `wrangler dev` does, not the run's
    // prebuilt bundle the other files share (worker-bundle-setup.ts).
    config: "wrangler.toml",
  });
});

afterAll(async () => {
  await worker?.stop();
  await llm?.close();
});

describe("plain wrangler dev, logged out", () => {
  it("starts without a login and completes a message", async () => {
    const { status, body } = await sendMessage(worker.url, { agent_id: "pi-x", text: "hello" }, 30);
    expect(status).toBe(200);
    expect(body).toMatchObject({ status: "completed", reply: "Hello from the scripted model." });
    expect(worker.child.output()).not.toMatch(/logged in|remote mode/i);
  });

  it("with LLM_PROVIDER=workers-ai, the run fails naming the commands that give the binding", async () => {
    const aiWorker = await startLocalWorker({
      vars: { LLM_PROVIDER: "workers-ai", DEVICE_TOKENS: "pi-x:t" },
      env: loggedOut(),
    });
    try {
      const { body } = await sendMessage(aiWorker.url, { agent_id: "pi-x", text: "hello" }, 30);
      expect(body).toMatchObject({ status: "failed", stop_reason: "llm_error" });
      expect(body.reply).toContain("npx wrangler login");
      expect(body.reply).toContain("npx wrangler dev --env workers-ai");
      expect(body.reply).toContain("npx wrangler deploy --env workers-ai");
    } finally {
      await aiWorker.stop();
    }
  });
});
