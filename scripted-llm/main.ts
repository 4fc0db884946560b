import { readFile } from "node:fs/promises";
import { parseArgs } from "node:util";
import { z } from "zod";
import { defaultRules } from "./default-script.js";
import { type ScriptRuleInput, ScriptRules } from "./script.js";
import { startScriptedLlm } from "./server.js";

/** `npx tsx scripted-llm/main.ts [--port 8788] [--host 127.0.0.1] [--script rules.json]` */

const Flags = z.object({
  port: z.coerce.number().int().min(0).max(65535).default(8788),
  host: z.string().min(1).default("127.0.0.1"),
  script: z.string().min(1).optional(),
});

async function main(): Promise<number> {
  let raw: unknown;
  try {
    raw = parseArgs({
      options: { port: { type: "string" }, host: { type: "string" }, script: { type: "string" } },
      strict: true,
    }).values;
  } catch (e) {
    console.error(`scripted-llm: ${(e as Error).message}`);
    return 64;
  }
  const flags = Flags.safeParse(raw);
  if (!flags.success) {
    console.error(`scripted-llm: ${flags.error.issues.map((i) => `--${i.path.join(".")}: ${i.message}`).join("; ")}`);
    return 64;
  }
  const rules = flags.data.script ? await loadScript(flags.data.script) : { ok: true as const, rules: defaultRules };
  if (!rules.ok) {
    console.error(`scripted-llm: ${rules.error}`);
    return 65;
  }
  const server = await startScriptedLlm({ port: flags.data.port, host: flags.data.host, rules: rules.rules });
  console.log(`scripted LLM listening on ${server.url}`);
  const stop = () => void server.close().then(() => process.exit(0));
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  return -1;
}

/** A script file is `{"rules": [...]}` or just the array of rules. */
async function loadScript(
  path: string,
): Promise<{ ok: true; rules: ScriptRuleInput[] } | { ok: false; error: string }> {
  let json: unknown;
  try {
    json = JSON.parse(await readFile(path, "utf8"));
  } catch (e) {
    return { ok: false, error: `cannot read script ${path}: ${(e as Error).message}` };
  }
  const candidate =
    typeof json === "object" && json !== null && "rules" in json ? (json as { rules: unknown }).rules : json;
  const parsed = ScriptRules.safeParse(candidate);
  if (!parsed.success) {
    return {
      ok: false,
      error: `bad script ${path}: ${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`,
    };
  }
  return { ok: true, rules: candidate as ScriptRuleInput[] };
}

main().then(
  (code) => {
    if (code >= 0) process.exit(code);
  },
  (e: unknown) => {
    console.error(`scripted-llm: ${(e as Error).message}`);
    process.exit(1);
  },
);
