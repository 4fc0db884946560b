import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "./temp-dir.js";

/**
 * A stand-in `wrangler` for testing `edgeloop deploy` without Cloudflare: a Node script put first on
 * PATH that records each invocation (argv and stdin) and answers as wrangler 4.164 does
 * (wrangler-dist/cli.js: whoami.ts, `secret list|put`, deploy's triggers). It keeps the secrets it
 * was given, so a second run sees them in `secret list`, as it would against a real worker.
 *
 * `WRANGLER_STANDIN_FAIL` in the environment makes one step fail: `logged-out`, `deploy`, or
 * `put:<NAME>`.
 */
const SCRIPT =
  String.raw`#!/usr/bin/env node
const fs = require("node:fs");
const path = require("node:path");
const state = process.env.WRANGLER_STANDIN_STATE;
const fail = process.env.WRANGLER_STANDIN_FAIL || "";
const args = process.argv.slice(2);
const env = args.includes("--env") ? args[args.indexOf("--env") + 1] : undefined;
const secretsFile = path.join(state, "secrets.json");
const secrets = fs.existsSync(secretsFile) ? JSON.parse(fs.readFileSync(secretsFile, "utf8")) : null;
const out = (s) => process.stdout.write(s + "\n");
const err = (s) => process.stderr.write(s + "\n");
const banner = () => out("\n ⛅️ wrangler 4.164.0\n───────────────────");
const multiEnvWarning = (cmd) => {
  if (!env) err("▲ [WARNING] Multiple environments are defined in the Wrangler configuration file, but no target environment was specified for the " + cmd + " command.\n");
};
function record(stdin) {
  fs.appendFileSync(path.join(state, "calls.jsonl"), JSON.stringify({ argv: args, stdin }) + "\n");
}
function main(stdin) {
  record(stdin);
  const [cmd, sub, name] = args;
  if (cmd === "whoami") {
    banner();
    out("Getting User settings...");
    if (fail === "logged-out") return out("You are not authenticated. Please run ` +
  "`wrangler login`" +
  String.raw`.");
    out("👋 You are logged in with an OAuth Token, associated with the email newcomer@example.com.");
    out("┌────────────────────┬──────────────────────────────────┐");
    out("│ Account Name       │ Account ID                       │");
    out("├────────────────────┼──────────────────────────────────┤");
    out("│ Newcomer's Account │ 0123456789abcdef0123456789abcdef │");
    out("└────────────────────┴──────────────────────────────────┘");
    out("🔓 Token Permissions:\nScope (Access)\n- account (read)\n- workers (write)");
    return;
  }
  if (cmd === "secret" && sub === "list") {
    if (!secrets) {
      err('✘ [ERROR] Worker "edgeloop"' + (env ? " (env: " + env + ")" : "") + " not found.\n\n  If this is a new Worker, run ` +
  "`wrangler deploy`" +
  String.raw` first to create it.\n  Otherwise, check that the Worker name is correct and you're logged into the right account.\n");
      process.exitCode = 1;
      return;
    }
    return out(JSON.stringify(Object.keys(secrets).map((n) => ({ name: n, type: "secret_text" })), null, "  "));
  }
  if (cmd === "secret" && sub === "put") {
    banner();
    multiEnvWarning("secret put");
    if (fail === "put:" + name) {
      err("✘ [ERROR] A request to the Cloudflare API (/accounts/0123456789abcdef0123456789abcdef/workers/scripts/edgeloop/secrets) failed.\n\n  Authentication error [code: 10000]\n");
      process.exitCode = 1;
      return;
    }
    out('🌀 Creating the secret for the Worker "edgeloop" ');
    if (!secrets) out('🌀 Creating new Worker "edgeloop"...');
    fs.writeFileSync(secretsFile, JSON.stringify({ ...(secrets || {}), [name]: stdin.replace(/\s+$/, "") }));
    return out("✨ Success! Uploaded secret " + name);
  }
  if (cmd === "deploy") {
    banner();
    multiEnvWarning("deploy");
    out("Total Upload: 2631.07 KiB / gzip: 470.55 KiB\nWorker Startup Time: 31 ms");
    out("Your Worker has access to the following bindings:\nBinding                                Resource");
    out("env.CONVERSATION (ConversationDO)      Durable Object");
    if (env === "workers-ai") out("env.AI                                 AI");
    if (fail === "deploy") {
      err("✘ [ERROR] A request to the Cloudflare API (/accounts/0123456789abcdef0123456789abcdef/workers/scripts/edgeloop) failed.\n\n  workers.api.error.script_too_large [code: 10027]\n");
      process.exitCode = 1;
      return;
    }
    if (!secrets) fs.writeFileSync(secretsFile, "{}");
    out("Uploaded edgeloop (4.21 sec)\nDeployed edgeloop triggers (0.84 sec)\n  https://edgeloop.newcomer.workers.dev");
    return out("Current Version ID: 5f0c3a8e-1b2d-4c5e-9f60-7a8b9c0d1e2f");
  }
  err("✘ [ERROR] Unknown arguments: " + args.join(" "));
  process.exitCode = 1;
}
let stdin = "";
if (process.stdin.isTTY) main("");
else {
  process.stdin.setEncoding("utf8");
  process.stdin.on("data", (c) => (stdin += c));
  process.stdin.on("end", () => main(stdin));
}
`;

export type WranglerCall = { argv: string[]; stdin: string };

export type WranglerStandIn = {
  /** put this first on PATH */
  binDir: string;
  /** the environment that points the stand-in at its state */
  env: Record<string, string>;
  calls(): WranglerCall[];
  clearCalls(): void;
  secrets(): Record<string, string> | null;
};

export function wranglerStandIn(): WranglerStandIn {
  const binDir = tempDir("wrangler-standin-bin-");
  const state = tempDir("wrangler-standin-state-");
  const script = join(binDir, "wrangler");
  writeFileSync(script, SCRIPT);
  chmodSync(script, 0o755);
  const callsFile = join(state, "calls.jsonl");
  const secretsFile = join(state, "secrets.json");
  return {
    binDir,
    env: { WRANGLER_STANDIN_STATE: state },
    calls: () =>
      existsSync(callsFile)
        ? readFileSync(callsFile, "utf8")
            .trim()
            .split("\n")
            .filter(Boolean)
            .map((l) => JSON.parse(l) as WranglerCall)
        : [],
    clearCalls: () => writeFileSync(callsFile, ""),
    secrets: () => (existsSync(secretsFile) ? JSON.parse(readFileSync(secretsFile, "utf8")) : null),
  };
}
