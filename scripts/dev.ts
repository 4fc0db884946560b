/**
 * `npm run dev`: plain `wrangler dev` (hot reload, wrangler's own keys and logs) that works in a
 * fresh clone. Settings come from the environment, then `.dev.vars` (scripts/local-settings.ts);
 * API_TOKEN, ADMIN_TOKEN and DEVICE_TOKENS that neither sets are throwaway local ones, printed; with
 * no model configured, the bundled scripted model runs beside it. `PORT` (default 8787) moves it,
 * and arguments after `--` go to wrangler (`npm run dev -- --log-level debug`).
 * `npx wrangler dev` stays plain wrangler: it reads .dev.vars alone.
 */
import { spawn } from "node:child_process";
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

const ROOT = new URL("../", import.meta.url).pathname;
/** `npm run dev -- --port 9000` works as `PORT=9000 npm run dev` does (wrangler must not get two ports). */
function takePortFlag(args: string[]): string | null {
  const at = args.findIndex((a) => a === "--port" || a.startsWith("--port="));
  if (at === -1) return null;
  const [flag] = args.splice(at, 1);
  return flag!.includes("=") ? flag!.split("=")[1]! : (args.splice(at, 1)[0] ?? null);
}
const WRANGLER_ARGS = process.argv.slice(2);
const PORT = Number(takePortFlag(WRANGLER_ARGS) || process.env.PORT || 8787);
const URL_BASE = `http://127.0.0.1:${PORT}`;
/** wrangler dev's own storage (no --persist-to here); the made-up tokens are kept beside it. */
const STATE_DIR = join(ROOT, ".wrangler/state");
const say = (line = "") => process.stdout.write(`${line}\n`);

async function main(): Promise<number> {
  if (!(await portIsFree(PORT))) {
    say(`npm run dev: ${busyPortMessage(PORT, "npm run dev")}`);
    return 1;
  }
  const settings = readLocalSettings(ROOT, process.env);
  const made: string[] = [];
  const vars = { ...settings.vars };
  for (const [name, prefix] of [
    ["API_TOKEN", "api"],
    ["ADMIN_TOKEN", "admin"],
  ] as const) {
    if (vars[name]) continue;
    vars[name] = keptLocalToken(STATE_DIR, name, prefix);
    made.push(name);
  }
  if (!vars.DEVICE_TOKENS) {
    vars.DEVICE_TOKENS = `pi-1:${keptLocalToken(STATE_DIR, "pi-1", "dev")}`;
    made.push("DEVICE_TOKENS");
  }
  const model = await chooseLocalModel(vars);
  Object.assign(vars, model.vars);

  const device = firstDeviceToken(vars.DEVICE_TOKENS);
  say(`edgeloop worker (wrangler dev) on ${URL_BASE}`);
  if (settings.fromEnvironment.length) say(`  settings from the environment: ${settings.fromEnvironment.join(", ")}`);
  if (made.length)
    say(
      `  local tokens (not in the environment or .dev.vars; kept in .wrangler/state across restarts): ${made.join(", ")}`,
    );
  for (const line of model.lines) say(`  ${line.trim()}`);
  say(`  Dashboard    ${URL_BASE}/   admin token ${vars.ADMIN_TOKEN}`);
  say(`  API token    ${vars.API_TOKEN}`);
  if (device) {
    say(
      `  Device       node device-agent/bin/edgeloop-agent.js --url ${URL_BASE} --agent-id ${device.agentId} ` +
        `--token ${device.token}`,
    );
  }
  say(`  Send         npx edgeloop send "echo: hi" --agent ${device?.agentId ?? "pi-1"} --wait --url ${URL_BASE} \
--token ${vars.API_TOKEN}`);
  say();

  const wrangler = spawn(
    join(ROOT, "node_modules/.bin/wrangler"),
    [
      "dev",
      ...(model.wranglerEnv ? ["--env", model.wranglerEnv] : []),
      "--ip",
      "127.0.0.1",
      "--port",
      String(PORT),
      ...varFlags(vars, settings.devVars),
      ...WRANGLER_ARGS,
    ],
    {
      cwd: ROOT,
      stdio: "inherit",
      env: { ...process.env, WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false" },
    },
  );
  // Ctrl-C reaches wrangler through the terminal; a SIGTERM sent to this script alone is passed on.
  process.on("SIGTERM", () => wrangler.kill("SIGTERM"));
  process.on("SIGINT", () => undefined);
  const code = await new Promise<number>((resolve) =>
    wrangler.on("exit", (c, signal) => resolve(signal ? 0 : (c ?? 1))),
  );
  await model.close?.();
  return code;
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    say(`npm run dev failed: ${(e as Error).message}`);
    process.exit(1);
  },
);
