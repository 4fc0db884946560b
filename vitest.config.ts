import { resolve } from "node:path";
import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";
import type { InlineConfig } from "vitest/node";
import LongFilesFirst from "./test/helpers/long-files-first.js";

// Three suites: pure logic in Node, the worker inside workerd, and real processes end to end.
// The last reporter closes the run with "vitest: N passed, N failed, N skipped" and fails it on any skip.
//
// All three share one pool of MAX_WORKERS files at a time, so the end-to-end files (which mostly
// wait on real processes) run beside the unit and worker files (which mostly compute) instead of
// after them. Vitest puts projects with different worker counts in groups that run one after the
// other, hence one number for all. Every e2e file takes free ports and its own temp folders, so
// two of them never meet; those sharing the one worker (test/helpers/shared-stack.ts) have agent
// ids and a scripted-model scope of their own.
const MAX_WORKERS = 3;

// The suite starts hundreds of Node processes (wrangler twice per worker, agents, the CLI, OpenClaw
// nodes), each compiling the same large bundles. Node >= 22.1 keeps compiled code in this folder
// and reuses it: a `wrangler dev` start took 7.7 CPU-s instead of 9.3. Node 20 ignores the setting.
process.env.NODE_COMPILE_CACHE ??= resolve("node_modules/.cache/node-compile-cache");

const SOAK = "test/e2e/soak-quick.test.ts";
const E2E: InlineConfig = {
  environment: "node",
  // The run's temp directory, then the agent, bridge and CLI bundled into it once for every file,
  // and the worker too (worker-bundle-setup.ts).
  globalSetup: [
    "test/helpers/test-run-dir.ts",
    "test/helpers/package-bundles-setup.ts",
    "test/helpers/worker-bundle-setup.ts",
  ],
  testTimeout: 120_000,
  hookTimeout: 120_000,
  // Nothing leaves the machine: wrangler sends no metrics and fetches no `request.cf` sample.
  env: { WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false" },
};

function isRuntimeClosingWithWorkInFlight(error: { name?: string; message?: string }): boolean {
  return (
    error.name === "EnvironmentTeardownError" &&
    /^\[vitest-worker\]: Closing rpc while "(onUserConsoleLog|resolve)" was pending$/.test(error.message ?? "")
  );
}

export default defineConfig({
  test: {
    reporters: ["default", "./test/helpers/skip-count-reporter.ts"],
    // When a shared workerd runtime closes after its last file, an object may still be writing
    // the log line of a socket that file closed, or loading a module for it: vitest rejects that
    // pending call. It comes after every test in the runtime ended, so it fails none of them.
    onUnhandledError: (error) => !isRuntimeClosingWithWorkInFlight(error),
    maxWorkers: MAX_WORKERS,
    sequence: { sequencer: LongFilesFirst },
    projects: [
      {
        test: {
          name: "unit",
          include: ["test/unit/**/*.test.ts"],
          // Files share a worker's module cache instead of importing zod and the protocol anew
          // each: the project's import time went from 120 s to 44 s. No unit file mocks modules or
          // stubs globals, and the one that fakes timers restores them.
          isolate: false,
          environment: "node",
          globalSetup: ["test/helpers/test-run-dir.ts"],
          testTimeout: 20_000,
        },
      },
      {
        plugins: [
          cloudflareTest({
            wrangler: { configPath: "./wrangler.toml" },
            // The `AI` binding is remote-only; tests use stand-ins and never log in to Cloudflare.
            remoteBindings: false,
            miniflare: {
              bindings: {
                API_TOKEN: "test-api-token",
                ADMIN_TOKEN: "test-admin-token",
                DEVICE_TOKENS: "pi-1:device-secret-1,pi-2:device-secret-2",
                DEVICE_RESULT_GRACE_MS: "200",
                OPENAI_BASE_URL: "http://127.0.0.1:9/v1",
                OPENAI_API_KEY: "unused",
                LLM_MODEL: "scripted",
                LLM_MAX_RETRIES: "0",
              },
            },
          }),
        ],
        test: {
          name: "worker",
          include: ["test/worker/**/*.test.ts"],
          // One runtime per pool worker for all its files, not a new workerd per file: the project
          // took 312 s with a runtime per file and 64 s without, on the same loaded machine. Every
          // file names its own objects (conversation ids, agent ids), so they do not meet.
          isolate: false,
          testTimeout: 20_000,
        },
      },
      {
        test: {
          name: "e2e",
          include: ["test/e2e/**/*.test.ts"],
          exclude: [SOAK],
          ...E2E,
          // Plus one worker and scripted model that the files needing nothing of their own share
          // (test/helpers/shared-stack.ts), started when the first of them asks: a `wrangler dev`
          // start costs about 10 CPU-s.
          globalSetup: [...(E2E.globalSetup as string[]), "test/helpers/shared-stack-setup.ts"],
        },
      },
      {
        // The chaos soak kills and restarts every part on deadlines of its own: it runs last and
        // alone, with the machine to itself, as a person runs `npm run soak`.
        test: { name: "soak", include: [SOAK], fileParallelism: false, ...E2E },
      },
    ],
  },
});
