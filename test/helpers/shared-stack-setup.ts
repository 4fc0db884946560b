import { mkdtempSync } from "node:fs";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { startScriptedLlm } from "../../scripted-llm/server.js";
import { startLocalWorker } from "./local-worker.js";
import { scriptedVars } from "./scripted-stack.js";
import { SHARED_DEVICES, SHARED_VARS } from "./shared-stack-config.js";

/**
 * Vitest global setup for the e2e project: one scripted model and one worker (plain `wrangler dev`,
 * as startLocalWorker runs it) for the files that need nothing of their own (shared-stack.ts),
 * instead of a start of each per file — about 8 CPU-seconds a start on the 2-core machine.
 * Stopped after the last file. Listed after test-run-dir.ts, whose folder holds its state.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const runDir = process.env.EDGELOOP_TEST_TMP;
  if (!runDir) throw new Error("shared-stack-setup.ts runs after test-run-dir.ts");
  const llm = await startScriptedLlm({ port: 0 });
  try {
    const worker = await startLocalWorker({
      name: "shared worker",
      persistDir: mkdtempSync(join(runDir, "edgeloop-shared-state-")),
      vars: scriptedVars(llm, SHARED_DEVICES, SHARED_VARS),
    });
    project.provide("sharedStack", { workerUrl: worker.url, llmOrigin: llm.origin });
    return async () => {
      await worker.stop();
      await llm.close();
    };
  } catch (e) {
    await llm.close();
    throw e;
  }
}
