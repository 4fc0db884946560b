import { join } from "node:path";
import { type LocalWorker, startLocalWorker } from "../../test/helpers/local-worker.js";
import { REPO_ROOT } from "../../test/helpers/processes.js";
import { ensurePeerPackages } from "./peer-packages.js";

/**
 * The Agents SDK peer (bench/peer-agents-sdk) on the same local runtime as the product's worker.
 * `meter: true` counts its rows and requests (cost-meter.ts), which costs time: the latency runs
 * use an unmetered one.
 */
export async function startPeerWorker(opts: {
  llmUrl: string;
  hookUrl?: string;
  meter?: boolean;
  persistDir?: string;
  port?: number;
  inspector?: boolean;
}): Promise<LocalWorker> {
  ensurePeerPackages();
  return startLocalWorker({
    config: join(REPO_ROOT, "bench/peer-agents-sdk/wrangler.toml"),
    name: opts.meter ? "peer-metered" : "peer",
    vars: {
      OPENAI_BASE_URL: opts.llmUrl,
      OPENAI_API_KEY: "scripted",
      LLM_MODEL: "scripted",
      HOOK_URL: opts.hookUrl ?? "http://127.0.0.1:9/",
      ...(opts.meter ? { COST_METER: "on" } : {}),
    },
    persistDir: opts.persistDir,
    port: opts.port,
    inspector: opts.inspector ?? false,
  });
}

/** One user message to the peer's agent `name`; resolves when its turn has settled. */
export async function peerChat(workerUrl: string, name: string, text: string): Promise<void> {
  const res = await fetch(`${workerUrl}/chat?name=${encodeURIComponent(name)}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ text }),
  });
  if (res.status !== 200) throw new Error(`peer chat answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
}

export type PeerMessage = { role: string; parts: { type: string; state?: string; text?: string; output?: unknown }[] };

/** The peer agent's persisted messages (the SDK's UI messages). */
export async function peerMessages(workerUrl: string, name: string): Promise<PeerMessage[]> {
  const res = await fetch(`${workerUrl}/messages?name=${encodeURIComponent(name)}`);
  if (res.status !== 200) throw new Error(`peer messages answered ${res.status}`);
  return (await res.json()) as PeerMessage[];
}
