import { ADMIN_TOKEN, type LocalWorker } from "../../test/helpers/local-worker.js";

/** A key scoped to the cost scenario's device and `pool`, issued by the admin. */
export async function scopedKey(worker: LocalWorker, pool: string): Promise<string> {
  const res = await fetch(`${worker.url}/v1/keys`, {
    method: "POST",
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify({ name: "bench-cost", agents: ["bench-cost"], pools: [pool] }),
  });
  if (res.status !== 201) throw new Error(`cost: POST /v1/keys answered ${res.status}: ${await res.text()}`);
  return ((await res.json()) as { key: string }).key;
}
