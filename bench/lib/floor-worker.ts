import { join } from "node:path";
import { type LocalWorker, startLocalWorker } from "../../test/helpers/local-worker.js";
import { type Child, REPO_ROOT } from "../../test/helpers/processes.js";

export type FloorWorker = { url: string; wsUrl: string; child: Child; stop: () => Promise<void> };

/** bench/floor-worker on the same local runtime as the product's worker (and the same inspector setting), on its own free port. */
export async function startFloorWorker(inspector: boolean): Promise<FloorWorker> {
  const worker: LocalWorker = await startLocalWorker({
    config: join(REPO_ROOT, "bench/floor-worker/wrangler.toml"),
    name: "floor-worker",
    vars: {},
    inspector,
  });
  return { url: worker.url, wsUrl: `ws://127.0.0.1:${worker.port}/ws`, child: worker.child, stop: worker.stop };
}
