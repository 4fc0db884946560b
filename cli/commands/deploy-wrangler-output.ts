import { stripVTControlCharacters } from "node:util";
import { z } from "zod";

/**
 * What `edgeloop deploy` reads from wrangler's output, as wrangler 4 prints it
 * (node_modules/wrangler/wrangler-dist/cli.js: whoami.ts, secret list, triggersDeploy). Pure:
 * the process is run elsewhere (deploy-wrangler.ts).
 */

export type WranglerRun = { code: number; stdout: string; stderr: string };

const plain = (text: string) => stripVTControlCharacters(text).replace(/\r/g, "");

export type Login = { loggedIn: true; who: string } | { loggedIn: false } | { unknown: string };

const WhoamiJson = z.looseObject({
  loggedIn: z.boolean(),
  authType: z.string().optional(),
  email: z.string().optional(),
});

/**
 * `wrangler whoami`: "👋 You are logged in with an OAuth Token, associated with the email a@b.c."
 * or "You are not authenticated. Please run `wrangler login`." (both exit 0); with `--json`
 * (which some wrappers add) `{"loggedIn":false}` and exit 1.
 */
export function readLogin(run: WranglerRun): Login {
  const out = plain(run.stdout);
  const associated = out.match(/You are logged in with an? (.+?), associated with the (?:email|account) (.+?)\.\s*$/m);
  if (associated) return { loggedIn: true, who: `${associated[2]}, ${associated[1]}` };
  const bare = out.match(/You are logged in with an? ([^,.\n]+)/);
  if (bare) return { loggedIn: true, who: bare[1]! };
  if (/You are not authenticated/.test(out)) return { loggedIn: false };
  const json = out.slice(out.indexOf("{"), out.lastIndexOf("}") + 1);
  if (json) {
    try {
      const parsed = WhoamiJson.safeParse(JSON.parse(json));
      if (parsed.success)
        return parsed.data.loggedIn
          ? { loggedIn: true, who: [parsed.data.email, parsed.data.authType].filter(Boolean).join(", ") }
          : { loggedIn: false };
    } catch {
      // not JSON after all: reported below with the rest of the output
    }
  }
  return { unknown: lastLines(run) };
}

export type Secrets = { names: Set<string> } | { noWorker: true } | { unreadable: string };

const SecretList = z.array(z.looseObject({ name: z.string() }));

/**
 * `wrangler secret list` prints the secrets' names as JSON (`[{"name":"API_TOKEN","type":"secret_text"}]`).
 * A worker that was never deployed is an error, "Worker "edgeloop" not found", which here means
 * that nothing is set yet.
 */
export function readSecretNames(run: WranglerRun): Secrets {
  const out = plain(run.stdout);
  if (run.code === 0) {
    const start = out.indexOf("[");
    if (start < 0 && out.trim() === "") return { names: new Set() };
    try {
      const parsed = SecretList.safeParse(JSON.parse(out.slice(start, out.lastIndexOf("]") + 1)));
      if (parsed.success) return { names: new Set(parsed.data.map((s) => s.name)) };
    } catch {
      // reported below
    }
  }
  if (/Worker "[^"]*"(?: \(env: [^)]*\))? not found/.test(plain(run.stderr) + out)) return { noWorker: true };
  return { unreadable: lastLines(run) };
}

/**
 * The worker's address from `wrangler deploy`, which lists its targets under "Deployed <name>
 * triggers (…)", two spaces in: `https://<name>.<subdomain>.workers.dev`, a custom domain as
 * `edge.example.com (custom domain…)`, a route as `example.com/* (zone name: example.com)`. A custom
 * domain is preferred (it is what the owner chose), then workers.dev, then a route's host.
 */
export function readDeployedUrl(stdout: string): string | null {
  const lines = plain(stdout).split("\n");
  const start = lines.findIndex((l) => /^Deployed \S+ triggers/.test(l));
  if (start < 0) return null;
  const targets: string[] = [];
  for (const line of lines.slice(start + 1)) {
    const m = line.match(/^\s+(\S.*?)\s*$/);
    if (!m) break;
    targets.push(m[1]!);
  }
  const custom = targets.find((t) => t.includes("(custom domain"));
  if (custom) return `https://${custom.split(" ")[0]}`;
  const workersDev = targets.find((t) => /^https:\/\/\S+\.workers\.dev$/.test(t));
  if (workersDev) return workersDev;
  const route = targets.find((t) => !t.startsWith("schedule:") && /^[a-z0-9*.-]+\.[a-z]{2,}(\/|\s|$)/i.test(t));
  if (!route) return null;
  const host = route.split(/[/\s]/)[0]!.replace(/^\*\.?/, "");
  return host ? `https://${host}` : null;
}

/** The end of what wrangler said, for an error message: its errors are at the bottom. */
export function lastLines(run: WranglerRun, count = 12): string {
  const text = plain(`${run.stdout}\n${run.stderr}`)
    .split("\n")
    .filter((l) => l.trim() !== "" && !l.startsWith("🪵"));
  return text.slice(-count).join("\n") || `(no output; exit code ${run.code})`;
}
