import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "../../test/helpers/free-port.js";
import { type Child, REPO_ROOT, startChild } from "../../test/helpers/processes.js";
import { waitUntil } from "../../test/helpers/wait.js";

export type FloorWorker = { url: string; wsUrl: string; child: Child; stop: () => Promise<void> };

/**
 * bench/floor-worker under `wrangler dev` — the same runtime as the product's worker, on its own
 * free port (startLocalWorker always runs the product's wrangler.toml, so this starts its own).
 */
export async function startFloorWorker(): Promise<FloorWorker> {
  const port = await freePort();
  const args = [
    "dev",
    "-c", join(REPO_ROOT, "bench/floor-worker/wrangler.toml"),
    "--ip", "127.0.0.1",
    "--port", String(port),
    "--inspector-port", String(await freePort()),
    "--persist-to", mkdtempSync(join(tmpdir(), "edgeloop-floor-state-")),
    "--show-interactive-dev-session=false",
    "--log-level", "warn",
  ];
  const child = startChild(join(REPO_ROOT, "node_modules/.bin/wrangler"), args, {
    name: "floor-worker",
    env: { WRANGLER_SEND_METRICS: "false", CI: "true", NO_COLOR: "1" },
  });
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitUntil(() => fetch(`${url}/healthz`).then((r) => r.status), (s) => s === 200, { timeoutMs: 90_000, what: "floor worker" });
  } catch (e) {
    await child.stop();
    throw new Error(`${(e as Error).message}\n--- wrangler output ---\n${child.output()}`);
  }
  return { url, wsUrl: `ws://127.0.0.1:${port}/ws`, child, stop: () => child.stop("SIGTERM") };
}
