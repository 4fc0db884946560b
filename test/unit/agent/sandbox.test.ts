import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { probeBwrap } from "../../../device-agent/src/sandbox/bubblewrap.js";
import { makeExecutor, tempDir } from "./helpers.js";

const bwrap = probeBwrap();

describe("bubblewrap sandbox (bwrap installed and usable)", () => {
  // Fails (never skips) where bwrap is missing or cannot sandbox, with the probe's reason.
  beforeEach(() => {
    if (!bwrap.usable)
      throw new Error(
        `${bwrap.reason}. \`npm test\` installs bubblewrap when it can; see scripts/provision-test-tools.ts`,
      );
  });

  let server: Server;
  let port = 0;
  let connections = 0;

  beforeAll(async () => {
    server = createServer((s) => {
      connections++;
      s.end("hello from the host\n");
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it("a sandboxed shell writes inside the workspace but cannot write outside it", async () => {
    const root = tempDir();
    const ws = join(root, "workspace");
    mkdirSync(ws);
    const outside = join(root, "outside.txt");
    const executor = makeExecutor(ws);
    const command = [
      `echo inside > ${ws}/inside.txt`,
      `echo escaped > ${outside} 2>/dev/null || echo "blocked sibling"`,
      `echo escaped > /etc/edgeloop-sandbox-test 2>/dev/null || echo "blocked etc"`,
      `echo escaped > /usr/edgeloop-sandbox-test 2>/dev/null || echo "blocked usr"`,
      "true",
    ].join("; ");
    const out = await executor.run({ requestId: "sb-1", tool: "shell", parameters: { command }, timeoutMs: 20_000 });
    expect(out.status).toBe("success");
    expect(readFileSync(join(ws, "inside.txt"), "utf8")).toBe("inside\n");
    expect(existsSync(outside)).toBe(false); // /tmp inside is a private tmpfs: the write went nowhere
    expect(existsSync("/etc/edgeloop-sandbox-test")).toBe(false);
    expect(existsSync("/usr/edgeloop-sandbox-test")).toBe(false);
    expect((out as { result: string }).result).toContain("blocked etc");
    expect((out as { result: string }).result).toContain("blocked usr");
  });

  it("hides the agent's state dir and config file inside the sandbox", async () => {
    const ws = tempDir();
    const state = join(ws, ".edgeloop");
    mkdirSync(join(state, "results"), { recursive: true });
    writeFileSync(join(state, "results", "r.json"), "secret result");
    const config = join(ws, "agent.toml"); // inside the read-write workspace: must still be hidden
    writeFileSync(config, 'token = "device-secret"');
    const executor = makeExecutor(ws, { hiddenPaths: [state, config] });
    const out = await executor.run({
      requestId: "sb-2",
      tool: "shell",
      parameters: { command: `ls ${state}/results | wc -l; cat ${config} 2>/dev/null | wc -c; ls ${config}` },
      timeoutMs: 20_000,
    });
    expect((out as { result: string }).result.split("\n").map((s) => s.trim())).toEqual(["0", "0", config, ""]);
  });

  it("without the network permission the sandbox cannot reach the network (not even the host's loopback)", async () => {
    const before = connections;
    const executor = makeExecutor(tempDir());
    const out = await executor.run({
      requestId: "sb-3",
      tool: "shell",
      parameters: { command: `exec 3<>/dev/tcp/127.0.0.1/${port} && cat <&3` },
      timeoutMs: 20_000,
    });
    expect(out).toMatchObject({ status: "error", error_type: "execution_failed" });
    expect(connections).toBe(before);
  });

  it("with the network permission it can", async () => {
    const executor = makeExecutor(tempDir());
    const out = await executor.run({
      requestId: "sb-4",
      tool: "net_shell",
      parameters: { command: `exec 3<>/dev/tcp/127.0.0.1/${port} && cat <&3` },
      timeoutMs: 20_000,
    });
    expect(out).toMatchObject({ status: "success", result: "hello from the host\n" });
  });

  it("a timed-out sandboxed tool is stopped too", async () => {
    const executor = makeExecutor(tempDir());
    const out = await executor.run({
      requestId: "sb-5",
      tool: "shell",
      parameters: { command: "sleep 60" },
      timeoutMs: 1_000,
    });
    expect(out).toMatchObject({ status: "error", error_type: "timeout" });
  });
});

describe("bubblewrap probe", () => {
  it("reports bwrap as unusable with a reason when it is not on PATH", () => {
    expect(probeBwrap("/nonexistent")).toEqual({ usable: false, reason: expect.stringContaining("not installed") });
  });

  it("tries the mounts a tool gets: a bwrap that can make a sandbox but not mount its /proc is unusable", () => {
    // As in many containers: namespaces work, mounting a new proc is refused. This stand-in bwrap
    // answers like that, and succeeds without --proc (as the old probe, which left /proc out, did).
    const dir = tempDir("edgeloop-bwrap-");
    writeFileSync(
      join(dir, "bwrap"),
      `#!/bin/sh\ncase " $* " in *" --proc "*) echo "bwrap: Can't mount proc on /newroot/proc: Operation not permitted" >&2; exit 1;; esac\nexit 0\n`,
    );
    chmodSync(join(dir, "bwrap"), 0o755);
    expect(probeBwrap(dir)).toEqual({
      usable: false,
      reason:
        "bwrap is installed but cannot create a sandbox: bwrap: Can't mount proc on /newroot/proc: Operation not permitted",
    });
  });
});
