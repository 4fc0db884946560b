import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type AgentConfig, loadConfig } from "../../../device-agent/src/config.js";
import { riskyWorkspace } from "../../../device-agent/src/default-dirs.js";
import { AGENT_BIN, REPO, tempDir } from "./helpers.js";

function config(argv: string[], env: NodeJS.ProcessEnv = {}, cwd = "/srv"): AgentConfig {
  const r = loadConfig(argv, env, cwd);
  if (!r.ok) throw new Error(r.error);
  if (!("config" in r.value)) throw new Error(r.value.command);
  return r.value.config;
}
function error(argv: string[], env: NodeJS.ProcessEnv = {}): string {
  const r = loadConfig(argv, env, "/srv");
  if (r.ok) throw new Error("expected an error");
  return r.error;
}

const REQUIRED = ["--url", "http://hub:8787", "--agent-id", "pi-1", "--token", "t0k", "--skills", "skills/a"];

describe("config", () => {
  it("keeps the state in the workspace it was given, and finds its data home under HOME without XDG_DATA_HOME", () => {
    expect(config([...REQUIRED, "--workspace", "ws"])).toMatchObject({
      workspace: "/srv/ws",
      stateDir: "/srv/ws/.edgeloop",
    });
    expect(config(REQUIRED).workspace).toBe(join(homedir(), ".local/share/edgeloop/workspace"));
  });

  it("applies defaults: a workspace and state of its own, never the current folder", () => {
    const c = config(REQUIRED, { XDG_DATA_HOME: "/home/pi/.data" });
    expect(c).toMatchObject({
      url: "http://hub:8787",
      agentId: "pi-1",
      skills: ["/srv/skills/a"],
      workspace: "/home/pi/.data/edgeloop/workspace",
      stateDir: "/home/pi/.data/edgeloop/state",
      capabilities: null,
      maxConcurrent: 5,
      outputCapBytes: 256 * 1024,
      logLevel: "info",
      killGraceMs: 2000,
      heartbeatMs: 20_000,
      sandboxing: "auto",
    });
  });

  it("loads the skills that ship with it when no --skills is given", () => {
    expect(config(["--url", "http://hub:8787", "--agent-id", "pi-1", "--token", "t0k"]).skills).toEqual([
      join(REPO, "skills"),
    ]);
    expect(config(["--transport", "mqtt", "--agent-id", "pi-1", "--broker", "mqtt://127.0.0.1:1883"]).skills).toEqual([
      join(REPO, "skills"),
    ]);
  });

  it("answers --version with the agent package's version", () => {
    const r = spawnSync(process.execPath, [AGENT_BIN, "--version"], { encoding: "utf8" });
    const pkg = JSON.parse(readFileSync(join(REPO, "device-agent/package.json"), "utf8")) as { version: string };
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(`${pkg.version}\n`);
  });

  it("takes skills as a repeated flag and as comma lists", () => {
    expect(config([...REQUIRED, "--skills", "b,c", "--skills=/abs/d"]).skills).toEqual([
      "/srv/skills/a",
      "/srv/b",
      "/srv/c",
      "/abs/d",
    ]);
  });

  it("precedence: flags > env > file > defaults; file paths are relative to the file", () => {
    const dir = tempDir();
    const file = join(dir, "agent.toml");
    writeFileSync(
      file,
      `[agent]
id = "from-file"
url = "https://file.example"
token = "file-token"
capabilities = ["file_read", "shell"]
skills = ["skills/desktop"]
workspace = "ws"
type = "desktop"

[tools]
sandboxing = "required"
timeout_ms = 60000
max_concurrent = 2

[tools.env]
EDGELOOP_BRAVE_API_KEY = "brave"

[sandbox]
bash_deny = ["\\\\bcurl\\\\b"]
`,
    );
    const c = config(["--config", file, "--max-concurrent", "7"], {
      EDGELOOP_AGENT_ID: "from-env",
      EDGELOOP_MAX_CONCURRENT: "3",
    });
    expect(c).toMatchObject({
      agentId: "from-env", // env beats file
      url: "https://file.example",
      token: "file-token",
      maxConcurrent: 7, // flag beats env beats file
      capabilities: ["file_read", "shell"],
      skills: [join(dir, "skills/desktop")],
      workspace: join(dir, "ws"),
      stateDir: join(dir, "ws/.edgeloop"),
      sandboxing: "required",
      toolTimeoutCeilingMs: 60_000,
      toolEnv: { EDGELOOP_BRAVE_API_KEY: "brave" },
      bashDeny: ["\\bcurl\\b"],
      configFile: file,
    });
  });

  it("reads every setting from EDGELOOP_* env", () => {
    const c = config([], {
      EDGELOOP_URL: "wss://hub.example",
      EDGELOOP_AGENT_ID: "pi-2",
      EDGELOOP_TOKEN: "tok",
      EDGELOOP_SKILLS: "/s/a,/s/b",
      EDGELOOP_WORKSPACE: "/data/ws",
      EDGELOOP_CAPABILITIES: "file_read, network",
      EDGELOOP_OUTPUT_CAP_BYTES: "4096",
      EDGELOOP_STATE_DIR: "/var/lib/edgeloop",
      EDGELOOP_LOG_LEVEL: "debug",
    });
    expect(c).toMatchObject({
      skills: ["/s/a", "/s/b"],
      workspace: "/data/ws",
      capabilities: ["file_read", "network"],
      outputCapBytes: 4096,
      stateDir: "/var/lib/edgeloop",
      logLevel: "debug",
    });
  });

  it("names the bad setting and where it came from", () => {
    expect(error([...REQUIRED, "--max-concurrent", "lots"])).toBe(
      "invalid setting --max-concurrent: expected an integer",
    );
    expect(error(REQUIRED, { EDGELOOP_MAX_CONCURRENT: "0" })).toBe(
      "invalid setting EDGELOOP_MAX_CONCURRENT: must be at least 1",
    );
    expect(error(["--url", "http://h", "--token", "t", "--skills", "s"])).toMatch(
      /^missing setting --agent-id, EDGELOOP_AGENT_ID or \[agent\] id$/,
    );
    expect(error([...REQUIRED, "--agent-id", "bad id!"])).toMatch(/^invalid setting --agent-id: /);
    expect(error([...REQUIRED, "--url", "ftp://x"])).toMatch(/^invalid setting --url: /);
    expect(error([...REQUIRED, "--frobnicate", "1"])).toBe("unknown flag --frobnicate (see --help)");
    expect(error([...REQUIRED, "--bash-deny", "(unclosed"])).toMatch(
      /^invalid setting --bash-deny \(item 0\): not a valid regular expression$/,
    );
  });

  it("rejects unknown keys in the TOML file, naming the key", () => {
    const file = join(tempDir(), "agent.toml");
    writeFileSync(file, `[agent]\ntokn = "x"\n`);
    expect(error(["--config", file])).toBe(`${file}: agent.tokn: Unrecognized key: "tokn"`);
  });

  it("a bad config makes the real bin exit non-zero with one clear line", () => {
    const r = spawnSync(process.execPath, [AGENT_BIN, ...REQUIRED, "--max-concurrent", "-3"], {
      encoding: "utf8",
      timeout: 60_000,
      env: { PATH: process.env.PATH },
    });
    expect(r.status).not.toBe(0);
    expect(r.stdout).toBe("");
    const lines = r.stderr.split("\n").filter((l) => l.length > 0);
    expect(lines).toEqual(["edgeloop-agent: invalid setting --max-concurrent: must be at least 1"]);
  });
});

describe("docs/device-agent.md", () => {
  it("documents every setting's flag, env variable and TOML key", async () => {
    const { readFileSync } = await import("node:fs");
    const { SETTINGS } = await import("../../../device-agent/src/config-settings.js");
    const doc = readFileSync(join(REPO, "docs/device-agent.md"), "utf8");
    for (const s of SETTINGS) {
      expect(doc).toContain(`\`${s.flag}\``);
      expect(doc).toContain(`\`${s.env}\``);
      expect(doc).toContain(`\`[${s.toml[0]}] ${s.toml[1]}\``);
    }
  });
});

describe("riskyWorkspace (doctor's warning)", () => {
  it("names a git repository and a home directory, and passes a folder of the agent's own", () => {
    const repo = tempDir("risky-repo-");
    mkdirSync(join(repo, ".git"));
    mkdirSync(join(repo, "sub"));
    expect(riskyWorkspace(join(repo, "sub"), "/nonexistent")).toContain(`inside the git repository ${repo}`);
    const home = tempDir("risky-home-");
    expect(riskyWorkspace(home, home)).toContain("is a home directory");
    expect(riskyWorkspace(tempDir("own-"), "/nonexistent")).toBeNull();
  });
});
