/**
 * Issue 29: `edgeloop deploy`, run as a user runs it, against a stand-in wrangler on PATH that
 * records what it was asked to do (test/helpers/wrangler-standin.ts).
 */
import { dirname, join } from "node:path";
import { beforeEach, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { tempDir } from "../helpers/temp-dir.js";
import { type WranglerStandIn, wranglerStandIn } from "../helpers/wrangler-standin.js";

const URL_ = "https://edgeloop.newcomer.workers.dev";
const TOKEN = /^[A-Za-z0-9_-]{43}$/;
const SYSTEM_PATH = `${dirname(process.execPath)}:/usr/bin:/bin`;

let wrangler: WranglerStandIn;

/** The CLI from the clone, with the stand-in first on PATH and nothing of the project's node_modules/.bin. */
function deploy(args: string[], env: Record<string, string> = {}, path = `${wrangler.binDir}:${SYSTEM_PATH}`) {
  const home = tempDir("deploy-home-");
  return runCli(["deploy", ...args], {
    PATH: path,
    HOME: home,
    XDG_CONFIG_HOME: join(home, ".config"),
    ...wrangler.env,
    ...env,
  });
}

const exported = (out: string, name: string) => out.match(new RegExp(`^  export ${name}=(\\S+)$`, "m"))?.[1];
const argvs = () => wrangler.calls().map((c) => c.argv.join(" "));

beforeEach(() => {
  wrangler = wranglerStandIn();
});

describe("edgeloop deploy", () => {
  it("checks the login, sets generated tokens through stdin, deploys, and prints the next steps", async () => {
    const run = await deploy([]);
    expect(run.code, run.stderr).toBe(0);
    expect(argvs()).toEqual(["whoami", "secret list", "secret put API_TOKEN", "secret put ADMIN_TOKEN", "deploy"]);
    const [, , api, admin] = wrangler.calls();
    expect(api!.stdin).toMatch(TOKEN);
    expect(admin!.stdin).toMatch(TOKEN);
    expect(api!.stdin).not.toBe(admin!.stdin);
    for (const call of wrangler.calls())
      for (const secret of [api!.stdin, admin!.stdin]) expect(call.argv.join(" ")).not.toContain(secret);
    expect(wrangler.secrets()).toEqual({ API_TOKEN: api!.stdin, ADMIN_TOKEN: admin!.stdin });

    const out = run.stdout;
    expect(out).toContain("✓ logged in to Cloudflare (newcomer@example.com, OAuth Token)");
    expect(out).toContain(`Deployed: ${URL_}\n`);
    expect(out).toContain(`Dashboard: ${URL_}/`);
    expect(exported(out, "EDGELOOP_URL")).toBe(URL_);
    expect(exported(out, "EDGELOOP_ADMIN_TOKEN")).toBe(admin!.stdin);
    expect(exported(out, "EDGELOOP_TOKEN")).toBe(api!.stdin);
    expect(out.split(admin!.stdin).length - 1).toBe(1);
    // A device is added by the worker's own install line and pairing, never a registry's package name.
    expect(out).toContain(`  curl -fsSL ${URL_}/install | sudo sh -s -- --agent-id pi-1\n`);
    expect(out).toContain(
      `  npx edgeloop devices approve <code> --url ${URL_} --admin-token "$EDGELOOP_ADMIN_TOKEN"\n`,
    );
    expect(out).not.toContain("npm install -g");
    expect(out).toContain("No model is configured");
    // wrangler's own output goes to stderr as it comes
    expect(run.stderr).toContain("Deployed edgeloop triggers");
  });

  it("keeps the tokens already in use on a re-run, and replaces them only with --rotate", async () => {
    expect((await deploy([])).code).toBe(0);
    const first = wrangler.secrets()!;
    wrangler.clearCalls();
    const again = await deploy(["--agent", "kitchen-pi"]);
    expect(again.code, again.stderr).toBe(0);
    expect(argvs()).toEqual(["whoami", "secret list", "deploy"]);
    expect(wrangler.secrets()).toEqual(first);
    expect(again.stdout).toContain("ADMIN_TOKEN was already set and is kept");
    expect(again.stdout).not.toContain("export EDGELOOP_ADMIN_TOKEN");
    expect(again.stdout).toContain("install | sudo sh -s -- --agent-id kitchen-pi\n");

    wrangler.clearCalls();
    const rotated = await deploy(["--rotate"]);
    expect(rotated.code, rotated.stderr).toBe(0);
    expect(argvs()).toEqual(["whoami", "secret list", "secret put API_TOKEN", "secret put ADMIN_TOKEN", "deploy"]);
    expect(wrangler.secrets()!.ADMIN_TOKEN).not.toBe(first.ADMIN_TOKEN);
    expect(exported(rotated.stdout, "EDGELOOP_ADMIN_TOKEN")).toBe(wrangler.secrets()!.ADMIN_TOKEN);
  });

  it("with --provider workers-ai, runs every wrangler step in the workers-ai environment", async () => {
    const run = await deploy(["--provider", "workers-ai"]);
    expect(run.code, run.stderr).toBe(0);
    expect(argvs()).toEqual([
      "whoami",
      "secret list --env workers-ai",
      "secret put API_TOKEN --env workers-ai",
      "secret put ADMIN_TOKEN --env workers-ai",
      "secret put LLM_PROVIDER --env workers-ai",
      "deploy --env workers-ai",
    ]);
    expect(wrangler.calls()[4]!.stdin).toBe("workers-ai");
    expect(run.stdout).toContain(`Deployed (--env workers-ai): ${URL_}`);
    expect(run.stdout).not.toContain("No model is configured");
  });

  it("sets a provider key from the shell's environment through stdin, and refuses without one", async () => {
    const refused = await deploy(["--provider", "anthropic"]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("set ANTHROPIC_API_KEY in this shell");
    expect(wrangler.calls()).toEqual([]);

    const run = await deploy(["--provider", "anthropic"], { ANTHROPIC_API_KEY: "sk-ant-test-key" });
    expect(run.code, run.stderr).toBe(0);
    const put = wrangler.calls().find((c) => c.argv.join(" ") === "secret put ANTHROPIC_API_KEY");
    expect(put?.stdin).toBe("sk-ant-test-key");
    expect(argvs().join("\n")).not.toContain("sk-ant-test-key");
    expect(argvs().at(-1)).toBe("deploy");
  });

  it("refuses when not logged in, saying how to log in, and changes nothing", async () => {
    const run = await deploy([], { WRANGLER_STANDIN_FAIL: "logged-out" });
    expect(run.code).toBe(4);
    expect(run.stderr).toContain("not logged in to Cloudflare. Run `npx wrangler login`");
    expect(run.stderr).toContain("Nothing was changed.");
    expect(argvs()).toEqual(["whoami"]);
  });

  it("on a failed deploy says which step failed, what is done, and shows the tokens it set; a re-run keeps them", async () => {
    const run = await deploy([], { WRANGLER_STANDIN_FAIL: "deploy" });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("edgeloop: wrangler deploy (exit 1; its output is above) failed:");
    expect(run.stderr).toContain("script_too_large");
    expect(run.stderr).toContain("Already done: API_TOKEN, ADMIN_TOKEN set as secrets on the worker.");
    const secrets = wrangler.secrets()!;
    expect(exported(run.stderr, "EDGELOOP_ADMIN_TOKEN")).toBe(secrets.ADMIN_TOKEN);
    expect(exported(run.stderr, "EDGELOOP_TOKEN")).toBe(secrets.API_TOKEN);

    wrangler.clearCalls();
    const retry = await deploy([]);
    expect(retry.code, retry.stderr).toBe(0);
    expect(argvs()).toEqual(["whoami", "secret list", "deploy"]);
    expect(wrangler.secrets()).toEqual(secrets);
  });

  it("on a failed secret, names it and what was already set", async () => {
    const run = await deploy([], { WRANGLER_STANDIN_FAIL: "put:ADMIN_TOKEN" });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("setting ADMIN_TOKEN (wrangler secret put ADMIN_TOKEN) failed:");
    expect(run.stderr).toContain("Authentication error [code: 10000]");
    expect(run.stderr).toContain("Already done: API_TOKEN set as a secret on the worker.");
    expect(argvs()).not.toContain("deploy");
  });

  it("says when wrangler is not there", async () => {
    const run = await deploy([], {}, SYSTEM_PATH);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("wrangler not found");
    expect(run.stderr).toContain("Nothing was changed.");
  });
});
