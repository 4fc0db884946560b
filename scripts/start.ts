/**
 * `npm start`: the whole product on this machine. wrangler dev on 127.0.0.1:8787, one device agent
 * (pi-1) with the bundled skills in a throwaway workspace, a sample message through the real
 * webhook, the conversation printed, then how to go on: the dashboard's URL and admin token, a CLI
 * line and a curl line that work as printed. It keeps running until Ctrl-C. Tokens it makes up are
 * kept in the state dir, so they stay the same across restarts (local-settings.ts).
 *
 * PORT (default 8787) and STATE_DIR (default .wrangler/state) move the worker and its storage.
 * Worker settings come from the environment, then .dev.vars (scripts/local-settings.ts).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chooseLocalModel } from "./local-model.js";
import {
  busyPortMessage,
  firstDeviceToken,
  keptLocalToken,
  portIsFree,
  readLocalSettings,
  varFlags,
} from "./local-settings.js";
import { runSample } from "./sample-run.js";

const ROOT = new URL("../", import.meta.url).pathname;
const PORT = Number(process.env.PORT || 8787);
const STATE_DIR = process.env.STATE_DIR || join(ROOT, ".wrangler/state");
const URL_BASE = `http://127.0.0.1:${PORT}`;
const AGENT_ID = "pi-1";
const children: ChildProcess[] = [];
const closers: (() => Promise<void>)[] = [];
let workspace: string | null = null;

/**
 * Lines a child prints when a client went away mid-response (a dashboard tab closed on its live
 * stream): workerd logs the broken socket; nothing failed, so they are not shown.
 */
const CLIENT_GONE = /broken pipe|EPIPE|ECONNRESET|disconnected|Network connection lost|client disconnected/i;

function say(line = ""): void {
  process.stdout.write(`${line}\n`);
}

async function waitFor(what: string, fn: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await fn().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${what} did not come up within ${timeoutMs / 1000}s`);
}

function run(name: string, cmd: string, args: string[], env: Record<string, string> = {}, echo = false): ChildProcess {
  const child = spawn(cmd, args, {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  const prefix = (chunk: Buffer) => {
    for (const l of chunk.toString().split("\n").filter(Boolean)) process.stdout.write(`  [${name}] ${l}\n`);
  };
  if (echo) {
    child.stdout!.on("data", prefix);
    child.stderr!.on("data", prefix);
  } else {
    // Kept quiet so the conversation is readable; errors still show.
    child.stderr!.on("data", (c: Buffer) => {
      const text = c.toString();
      if (/error/i.test(text) && !/Request\.cf|cf object/i.test(text) && !CLIENT_GONE.test(text)) prefix(c);
    });
    child.stdout!.resume();
  }
  child.on("exit", (code, signal) => {
    if (!shuttingDown) say(`  [${name}] exited (${signal ?? code})`);
  });
  children.push(child);
  return child;
}

let shuttingDown = false;
async function shutdown(code = 0): Promise<never> {
  shuttingDown = true;
  for (const c of children) {
    try {
      process.kill(-c.pid!, "SIGTERM");
    } catch {
      /* gone */
    }
  }
  for (const close of closers) await close().catch(() => undefined);
  process.exit(code);
}
// Whatever ends the process (Ctrl-C, SIGTERM, a failure), the throwaway workspace goes with it.
process.on("exit", () => {
  if (workspace) rmSync(workspace, { recursive: true, force: true });
});
// Our own stdout closed under us (piped into `head`, a closed terminal): stop quietly.
process.stdout.on("error", () => void shutdown(0));
process.on("SIGINT", () => void shutdown(0));
process.on("SIGTERM", () => void shutdown(0));

async function main(): Promise<void> {
  if (!(await portIsFree(PORT))) throw new Error(busyPortMessage(PORT, "npm start"));
  // Worker settings: the environment over .dev.vars (README, "Configuration"); tokens not set are made up.
  const settings = readLocalSettings(ROOT, process.env);
  if (settings.fromEnvironment.length) say(`Settings from the environment: ${settings.fromEnvironment.join(", ")}`);
  const apiToken = settings.vars.API_TOKEN || keptLocalToken(STATE_DIR, "API_TOKEN", "api");
  const adminToken = settings.vars.ADMIN_TOKEN || keptLocalToken(STATE_DIR, "ADMIN_TOKEN", "admin");
  const configured = firstDeviceToken(settings.vars.DEVICE_TOKENS);
  const deviceToken =
    configured?.agentId === AGENT_ID && configured.token
      ? configured.token
      : keptLocalToken(STATE_DIR, AGENT_ID, "dev");
  const deviceTokens =
    configured?.agentId === AGENT_ID
      ? settings.vars.DEVICE_TOKENS!
      : [settings.vars.DEVICE_TOKENS, `${AGENT_ID}:${deviceToken}`].filter(Boolean).join(",");

  const model = await chooseLocalModel(settings.vars);
  if (model.close) closers.push(model.close);
  for (const line of model.lines) say(line);
  const vars = {
    ...settings.vars,
    API_TOKEN: apiToken,
    ADMIN_TOKEN: adminToken,
    DEVICE_TOKENS: deviceTokens,
    ...model.vars,
  };

  say(`Starting the worker (wrangler dev) on ${URL_BASE} ...`);
  run(
    "worker",
    join(ROOT, "node_modules/.bin/wrangler"),
    [
      "dev",
      // The Workers AI binding (a Cloudflare login) only when that is the model.
      ...(model.wranglerEnv ? ["--env", model.wranglerEnv] : []),
      "--ip",
      "127.0.0.1",
      "--port",
      String(PORT),
      "--persist-to",
      STATE_DIR,
      "--show-interactive-dev-session=false",
      "--log-level",
      "warn",
      ...varFlags(vars, settings.devVars),
    ],
    { WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false" },
  );
  await waitFor("the worker", async () => (await fetch(`${URL_BASE}/healthz`)).ok, 90_000);

  workspace = mkdtempSync(join(tmpdir(), "edgeloop-workspace-"));
  writeFileSync(join(workspace, "README.txt"), "This is the device's throwaway workspace for `npm start`.\n");
  say(`Starting device agent '${AGENT_ID}' with the bundled skills; workspace ${workspace} (removed on exit)`);
  run("agent", process.execPath, [
    join(ROOT, "device-agent/bin/edgeloop-agent.js"),
    "--url",
    URL_BASE,
    "--agent-id",
    AGENT_ID,
    "--token",
    deviceToken,
    "--workspace",
    workspace,
    "--skills",
    join(ROOT, "skills/desktop-tools"),
    "--skills",
    join(ROOT, "skills/pi-tools"),
  ]);
  await waitFor(
    "the device agent",
    async () => {
      const res = await fetch(`${URL_BASE}/v1/devices/${AGENT_ID}`, {
        headers: { authorization: `Bearer ${adminToken}` },
      });
      return ((await res.json()) as { online?: boolean }).online === true;
    },
    30_000,
  );

  // Before the sample, which may wait for an approval the dashboard can give.
  say(`The dashboard is up at ${URL_BASE}/ (admin token ${adminToken}); approvals can be decided there too.`);
  const conversationId = await runSample(
    { url: URL_BASE, apiToken, adminToken, agentId: AGENT_ID },
    "What machine is this device, and how long has it been up?",
  );
  howToGoOn(conversationId, { admin: adminToken, api: apiToken });
}

/**
 * What to do next, each line usable exactly as printed, pasted into any terminal: the tokens are
 * written out (local ones; a shell variable would be empty in another terminal).
 */
function howToGoOn(conversationId: string, tokens: { admin: string; api: string }): void {
  say("Running. Open the dashboard, or send more from another terminal in this folder:");
  say(`  Dashboard    ${URL_BASE}/`);
  say(`  Admin token  ${tokens.admin}   (the dashboard's login)`);
  say(
    `  CLI          npx edgeloop send "read README.txt" --agent ${AGENT_ID} --wait --url ${URL_BASE} --token ${tokens.api}`,
  );
  say(`               npx edgeloop status --url ${URL_BASE} --admin-token ${tokens.admin}`);
  say(`  curl         curl -s -X POST '${URL_BASE}/v1/messages?wait=60' -H "authorization: Bearer ${tokens.api}" \\`);
  say(`                 -H 'content-type: application/json' -d '{"agent_id":"${AGENT_ID}","text":"read README.txt"}'`);
  say(`  This one     npx edgeloop conversations ${conversationId} --url ${URL_BASE} --token ${tokens.api}`);
  say("Ctrl-C to stop.");
}

main().catch((e: unknown) => {
  say(`npm start failed: ${(e as Error).message}`);
  void shutdown(1);
});
