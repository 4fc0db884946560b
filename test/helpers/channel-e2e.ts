import { ADMIN_TOKEN } from "./local-worker.js";
import { waitUntil } from "./wait.js";

/** What the chat channels' end-to-end tests share: the admin API, waiting for a platform call. */

/** An admin API call against a running worker, its JSON answer parsed. */
export async function adminJson<T>(
  workerUrl: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: T }> {
  const res = await fetch(`${workerUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return { status: res.status, body: (await res.json()) as T };
}

/** The first recorded platform call matching `pred`, waited for. */
export async function waitForRecorded<C>(
  calls: () => readonly C[],
  what: string,
  pred: (c: C) => boolean,
  timeoutMs = 30_000,
): Promise<C> {
  const found = await waitUntil(
    async () => calls().find(pred),
    (c) => c !== undefined,
    { timeoutMs, what },
  );
  return found!;
}
