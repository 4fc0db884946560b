/**
 * `npm start`: the whole product on this machine. wrangler dev on 127.0.0.1:8787, one device agent
 * (pi-1) with the bundled skills in a throwaway workspace, a sample message through the real
 * webhook, the conversation printed, then how to go on: the dashboard's URL and admin token, a CLI
 * line and a curl line that work as printed. It keeps running until Ctrl-C.
 *
 * PORT (default 8787) and STATE_DIR (default .wrangler/state) move the worker and its storage.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chooseLocalModel } from "./local-model.js";

const ROOT = new URL("../", import.meta.url).pathname;
const PORT = Number(process.env.PORT ?? 8787);
const STATE_DIR = process.env.STATE_DIR ?? join(ROOT, ".wrangler/state");
const URL_BASE = `http://127.0.0.1:${PORT}`;
const AGENT_ID = "pi-1";
const children: ChildProcess[] = [];
const closers: (() => Promise<void>)[] = [];

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
      if (/error/i.test(text) && !/Request\.cf|cf object/i.test(text)) prefix(c);
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
process.on("SIGINT", () => void shutdown(0));
process.on("SIGTERM", () => void shutdown(0));

async function main(): Promise<void> {
  const apiToken = process.env.API_TOKEN || `api-${randomBytes(12).toString("hex")}`;
  const adminToken = process.env.ADMIN_TOKEN || `admin-${randomBytes(12).toString("hex")}`;
  const deviceToken = `dev-${randomBytes(12).toString("hex")}`;

  const vars: Record<string, string> = {
    API_TOKEN: apiToken,
    ADMIN_TOKEN: adminToken,
    DEVICE_TOKENS: `${AGENT_ID}:${deviceToken}`,
  };
  const model = await chooseLocalModel(process.env);
  if (model.close) closers.push(model.close);
  for (const line of model.lines) say(line);
  Object.assign(vars, model.vars);

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
      ...Object.entries(vars).flatMap(([k, v]) => ["--var", `${k}:${v}`]),
    ],
    { WRANGLER_SEND_METRICS: "false" },
  );
  await waitFor("the worker", async () => (await fetch(`${URL_BASE}/healthz`)).ok, 90_000);

  const workspace = mkdtempSync(join(tmpdir(), "edgeloop-workspace-"));
  writeFileSync(join(workspace, "README.txt"), "This is the device's throwaway workspace for `npm start`.\n");
  say(`Starting device agent '${AGENT_ID}' with the bundled skills; workspace ${workspace}`);
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

  const text = "What machine is this device, and how long has it been up?";
  say();
  say(`> user: ${text}`);
  const res = await fetch(`${URL_BASE}/v1/messages?wait=60`, {
    method: "POST",
    headers: { authorization: `Bearer ${apiToken}`, "content-type": "application/json" },
    body: JSON.stringify({ agent_id: AGENT_ID, text }),
  });
  const reply = (await res.json()) as {
    conversation_id: string;
    status: string;
    reply: string | null;
    iterations: number;
  };
  const conv = (await (
    await fetch(`${URL_BASE}/v1/conversations/${reply.conversation_id}`, {
      headers: { authorization: `Bearer ${apiToken}` },
    })
  ).json()) as {
    messages: {
      role: string;
      content: string | null;
      tool_calls?: { function: { name: string; arguments: string } }[];
    }[];
  };
  for (const m of conv.messages.slice(1)) {
    if (m.role === "assistant" && m.tool_calls?.length) {
      for (const c of m.tool_calls) say(`  tool call  ${c.function.name} ${c.function.arguments}`);
    } else if (m.role === "tool") {
      say(`  result     ${(m.content ?? "").trim().replace(/\n/g, "\n             ")}`);
    }
  }
  say(`< assistant (${reply.status}, ${reply.iterations} LLM calls): ${reply.reply ?? "(no reply)"}`);
  say();
  howToGoOn(reply.conversation_id, {
    admin: process.env.ADMIN_TOKEN ? '"$ADMIN_TOKEN"' : adminToken,
    api: process.env.API_TOKEN ? '"$API_TOKEN"' : apiToken,
    adminShown: process.env.ADMIN_TOKEN ? "the ADMIN_TOKEN you set" : adminToken,
  });
}

/**
 * What to do next, each line usable exactly as printed. The tokens are this run's random, local
 * ones (printed, so the dashboard can be opened); tokens the user set are referred to, never echoed.
 */
function howToGoOn(conversationId: string, tokens: { admin: string; api: string; adminShown: string }): void {
  say("Running. Open the dashboard, or send more from another terminal in this folder:");
  say(`  Dashboard    ${URL_BASE}/`);
  say(`  Admin token  ${tokens.adminShown}   (the dashboard's login)`);
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
