import { mkdtempSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { startScriptedStack } from "./scripted-stack.js";
import { SHARED_DEVICES, SHARED_VARS, type SharedStackInfo } from "./shared-stack-config.js";

/**
 * Vitest global setup for the e2e project: one scripted model and one worker (plain `wrangler dev`,
 * as startLocalWorker runs it) for the files that need nothing of their own (shared-stack.ts),
 * instead of a start of each per file — about 10 CPU-seconds a start on the 2-core machine.
 *
 * Started when the first file asks for them (`POST /start` on a loopback launcher whose URL the
 * files get through `provide`), so a run of files that all have workers of their own starts none;
 * stopped after the last file. Listed after test-run-dir.ts, whose folder holds the worker's state.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const runDir = process.env.EDGELOOP_TEST_TMP;
  if (!runDir) throw new Error("shared-stack-setup.ts runs after test-run-dir.ts");
  let stack: ReturnType<typeof startStack> | undefined;
  const launcher = createServer((req, res) => {
    if (req.method !== "POST" || req.url !== "/start") return void res.writeHead(404).end();
    stack ??= startStack(runDir);
    stack.then(
      ({ info }) => res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(info)),
      (e: Error) => res.writeHead(500, { "content-type": "text/plain" }).end(e.message),
    );
  });
  await new Promise<void>((resolve) => launcher.listen(0, "127.0.0.1", resolve));
  project.provide("sharedStackLauncher", `http://127.0.0.1:${(launcher.address() as AddressInfo).port}`);
  return async () => {
    launcher.close();
    await (await stack?.catch(() => undefined))?.stop();
  };
}

async function startStack(runDir: string): Promise<{ info: SharedStackInfo; stop: () => Promise<void> }> {
  const { llm, worker, stop } = await startScriptedStack({
    rules: [],
    devices: SHARED_DEVICES,
    vars: SHARED_VARS,
    worker: { name: "shared worker", persistDir: mkdtempSync(join(runDir, "edgeloop-shared-state-")) },
  });
  return { info: { workerUrl: worker.url, llmOrigin: llm.origin }, stop };
}
