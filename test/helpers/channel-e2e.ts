import { spawn } from "node:child_process";
import { join } from "node:path";
import { ADMIN_TOKEN } from "./local-worker.js";
import { REPO_ROOT } from "./processes.js";
import { waitUntil } from "./wait.js";

/** What the chat channels' end-to-end tests share: the admin API, the CLI, waiting for a platform call. */

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

/** `edgeloop` as an operator runs it, against this worker with the admin token. */
export function runCli(
  workerUrl: string,
  args: string[],
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(REPO_ROOT, "cli/bin/edgeloop.js"), ...args], {
      cwd: REPO_ROOT,
      env: {
        PATH: process.env.PATH!,
        HOME: "/nonexistent",
        EDGELOOP_URL: workerUrl,
        EDGELOOP_ADMIN_TOKEN: ADMIN_TOKEN,
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c) => (stdout += c));
    child.stderr.on("data", (c) => (stderr += c));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
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
