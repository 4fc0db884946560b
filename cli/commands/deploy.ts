import { randomBytes } from "node:crypto";
import { Identifier } from "@edgeloop/protocol/ids";
import { z } from "zod";
import { type Command, parseInput, positionals, printJson } from "../command.js";
import { CliError, EXIT, usageError } from "../exit-codes.js";
import {
  type DeployProgress,
  doneSoFar,
  summaryLines,
  TOKEN_SECRETS,
  type TokenSecret,
  tokenExports,
} from "./deploy-summary.js";
import { findProjectDir, type Wrangler, wranglerIn } from "./deploy-wrangler.js";
import { lastLines, readDeployedUrl, readLogin, readSecretNames } from "./deploy-wrangler-output.js";

const synopsis =
  "deploy [--provider workers-ai|anthropic|openai] [--env name] [--rotate] [--agent pi-1] [--wrangler path] " +
  "[--dir clone] [--url url] [--json]";

const PROVIDERS = ["workers-ai", "anthropic", "openai"] as const;

const Flags = z
  .object({
    provider: z.enum(PROVIDERS).optional(),
    env: z
      .string()
      .regex(/^[A-Za-z0-9_-]{1,64}$/, "a wrangler environment in wrangler.toml, like workers-ai")
      .optional(),
    rotate: z.boolean().default(false),
    agent: Identifier.default("pi-1"),
    wrangler: z.string().min(1).optional(),
    dir: z.string().min(1).optional(),
    url: z
      .string()
      .url()
      .refine((u) => /^https?:\/\//.test(u), "an http:// or https:// URL")
      .transform((u) => u.replace(/\/+$/, ""))
      .optional(),
  })
  .refine((f) => !(f.provider === "workers-ai" && f.env !== undefined && f.env !== "workers-ai"), {
    message: "--provider workers-ai deploys the workers-ai environment (the one that binds AI); drop --env",
    path: ["env"],
  });

/** A provider's settings come from this shell's environment, never argv, and go to wrangler on stdin. */
const ProviderSecrets = {
  anthropic: z.object({ ANTHROPIC_API_KEY: z.string({ error: "set ANTHROPIC_API_KEY in this shell" }) }),
  openai: z.object({
    OPENAI_BASE_URL: z
      .string({ error: "set OPENAI_BASE_URL in this shell, e.g. https://api.openai.com/v1" })
      .url("OPENAI_BASE_URL must be a URL, e.g. https://api.openai.com/v1"),
    OPENAI_API_KEY: z.string().min(1).optional(),
  }),
} as const;

/** Settings that choose a model: with none of them (and no --env workers-ai) conversations end llm_error. */
const MODEL_SETTINGS = ["LLM_PROVIDER", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY"];

/** 32 random bytes, URL-safe: pasted into shells and Authorization headers as they are. */
const newToken = () => randomBytes(32).toString("base64url");

/** The secrets a provider choice sets: LLM_PROVIDER (so a key left from another provider does not win) and its own. */
function providerSecrets(provider: (typeof PROVIDERS)[number] | undefined): [string, string][] {
  if (!provider) return [];
  if (provider === "workers-ai") return [["LLM_PROVIDER", provider]];
  const parsed = ProviderSecrets[provider].safeParse(
    Object.fromEntries(Object.entries(process.env).filter(([, v]) => v !== "")),
  );
  if (!parsed.success)
    throw usageError(
      `--provider ${provider}: ${parsed.error.issues[0]!.message} (it goes to wrangler on stdin, not on the command ` +
        `line). Nothing was changed.`,
    );
  return [["LLM_PROVIDER", provider], ...Object.entries(parsed.data).filter((e): e is [string, string] => !!e[1])];
}

/** A failed step: which one, what wrangler said, and what is already done (so a re-run is safe). */
function stepFailed(step: string, said: string, progress: DeployProgress): CliError {
  return new CliError(`${step} failed:\n${said}\n\n${doneSoFar(progress)}`, EXIT.failure);
}

async function checkLogin(wrangler: Wrangler): Promise<string> {
  const login = readLogin(await wrangler.run(["whoami"]));
  if ("unknown" in login)
    throw new CliError(`could not check the Cloudflare login (wrangler whoami):\n${login.unknown}`, EXIT.failure);
  if (!login.loggedIn)
    throw new CliError(
      "not logged in to Cloudflare. Run `npx wrangler login` (or set CLOUDFLARE_API_TOKEN), then run " +
        "`npx edgeloop deploy` again. Nothing was changed.",
      EXIT.auth,
    );
  return login.who;
}

async function existingSecrets(wrangler: Wrangler, envArgs: string[]): Promise<Set<string>> {
  const run = await wrangler.run(["secret", "list", ...envArgs]);
  const secrets = readSecretNames(run);
  if ("noWorker" in secrets) return new Set();
  if ("unreadable" in secrets)
    throw new CliError(
      `could not list the worker's secrets (wrangler secret list), so cannot tell which tokens are already in ` +
        `use:\n${secrets.unreadable}\n\nNothing was changed.`,
      EXIT.failure,
    );
  return secrets.names;
}

function modelNote(names: Set<string>, env: string | undefined, provider: string | undefined): string | null {
  if (provider || env === "workers-ai" || MODEL_SETTINGS.some((n) => names.has(n))) return null;
  return (
    "No model is configured, so conversations will end with llm_error. Choose one (docs/deploy.md):\n" +
    "  npx edgeloop deploy --provider workers-ai            # Workers AI: no key, billed to this account\n" +
    "  npx wrangler secret put ANTHROPIC_API_KEY            # or OPENAI_BASE_URL + OPENAI_API_KEY"
  );
}

export const deployCommand: Command = {
  names: ["deploy"],
  synopsis,
  summary: "deploy the worker to Cloudflare: tokens as secrets, wrangler deploy, then how to add a device",
  options: {
    provider: { type: "string" },
    env: { type: "string" },
    rotate: { type: "boolean" },
    agent: { type: "string" },
    wrangler: { type: "string" },
    dir: { type: "string" },
  },
  async run({ values, positionals: args, json }) {
    positionals(args, [], synopsis);
    const flags = parseInput(Flags, values, synopsis);
    const env = flags.env ?? (flags.provider === "workers-ai" ? "workers-ai" : undefined);
    const envArgs = env ? ["--env", env] : [];
    const fromProvider = providerSecrets(flags.provider);
    const wrangler = wranglerIn(findProjectDir(flags.dir ?? process.cwd()), flags.wrangler);
    const say = (line: string) => json || console.log(line);

    say(`✓ logged in to Cloudflare (${await checkLogin(wrangler)})`);
    const names = await existingSecrets(wrangler, envArgs);
    const progress: DeployProgress = { generated: {}, kept: [], secretsSet: [], deployed: false };
    const toSet: [string, string][] = [];
    for (const name of TOKEN_SECRETS) {
      if (names.has(name) && !flags.rotate) progress.kept.push(name);
      else toSet.push([name, newToken()]);
    }
    toSet.push(...fromProvider);

    for (const [name, value] of toSet) {
      const put = await wrangler.run(["secret", "put", name, ...envArgs], { stdin: value });
      if (put.code !== 0) throw stepFailed(`setting ${name} (wrangler secret put ${name})`, lastLines(put), progress);
      progress.secretsSet.push(name);
      if ((TOKEN_SECRETS as readonly string[]).includes(name)) progress.generated[name as TokenSecret] = value;
      say(`✓ ${name} ${progress.generated[name as TokenSecret] ? "generated and " : ""}set as a secret`);
    }
    for (const name of progress.kept) say(`✓ ${name} already set: kept (--rotate replaces it)`);

    say(`… wrangler deploy${env ? ` --env ${env}` : ""} (its output follows)`);
    const deployed = await wrangler.run(["deploy", ...envArgs], { echo: true });
    if (deployed.code !== 0)
      throw stepFailed(
        `wrangler deploy (exit ${deployed.code}; its output is above)`,
        lastLines(deployed, 4),
        progress,
      );
    progress.deployed = true;
    const url = flags.url ?? readDeployedUrl(deployed.stdout);
    if (!url) {
      const tokens = tokenExports(progress.generated).map((l) => `  ${l}`);
      throw new CliError(
        "the worker is deployed, but wrangler's output names no URL for it (workers_dev off and no routes?). " +
          "Find it in the Cloudflare dashboard, then run `npx edgeloop deploy --url <it>` to print the next steps" +
          (tokens.length ? ` (tokens are kept). The tokens this run set, shown once:\n${tokens.join("\n")}` : "."),
        EXIT.failure,
      );
    }
    const note = modelNote(names, env, flags.provider);
    if (json) {
      printJson({
        url,
        dashboard_url: `${url}/`,
        env: env ?? null,
        secrets_set: progress.secretsSet,
        tokens_kept: progress.kept,
        admin_token: progress.generated.ADMIN_TOKEN ?? null,
        api_token: progress.generated.API_TOKEN ?? null,
        model_configured: note === null,
      });
    } else {
      console.log(summaryLines({ url, env, agent: flags.agent, progress, modelNote: note }).join("\n"));
    }
    return EXIT.ok;
  },
};
