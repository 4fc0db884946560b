import { chmodSync, copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ToolExecutor } from "../../../device-agent/src/executor/executor.js";
import { DEFAULT_DENY_RULES } from "../../../device-agent/src/sandbox/deny-list.js";
import { loadSkills } from "../../../device-agent/src/skills/load-skills.js";
import { BASIC, isAlive, makeExecutor, tempDir, waitFor } from "./helpers.js";

const pidIn = (file: string) => Number(readFileSync(file, "utf8").trim());

describe("executor: the tool-binary contract", () => {
  it("passes params as --name value flags in schema order and as JSON on stdin, with cwd and env", async () => {
    const ws = tempDir();
    const executor = makeExecutor(ws, {
      toolEnv: { EDGELOOP_BRAVE_API_KEY: "brave-key" },
      baseEnv: { ...process.env, EDGELOOP_TOKEN: "secret" },
    });
    const params = { list: ["a", "b"], flag: true, text: "hello world", count: 3 };
    const out = await executor.run({ requestId: "req-1", tool: "echo", parameters: params, timeoutMs: 10_000 });
    expect(out).toMatchObject({ status: "success", tool: "echo", exit_code: 0 });
    const seen = JSON.parse((out as { result: string }).result);
    expect(seen.argv).toEqual(["--text", "hello world", "--count", "3", "--flag", "true", "--list", '["a","b"]']);
    expect(seen.stdin).toEqual(params);
    expect(seen.cwd).toBe(ws);
    expect(seen.env).toMatchObject({
      EDGELOOP_WORKSPACE: ws,
      EDGELOOP_REQUEST_ID: "req-1",
      EDGELOOP_TOOL: "echo",
      EDGELOOP_TIMEOUT_MS: "10000",
      EDGELOOP_BRAVE_API_KEY: "brave-key",
    });
    expect(seen.env.EDGELOOP_TOKEN).toBeUndefined(); // the device token never reaches a tool
    expect(out.elapsed_ms).toBeGreaterThan(0);
  });

  it.each([
    [64, "invalid_params"],
    [66, "not_found"],
    [77, "permission_denied"],
  ])("exit %i → %s with the first stderr line as error", async (code, type) => {
    const out = await makeExecutor(tempDir()).run({
      requestId: `exit-${code}`,
      tool: "exit_code",
      parameters: { code },
      timeoutMs: 10_000,
    });
    expect(out).toMatchObject({
      status: "error",
      error_type: type,
      error: "first line: what went wrong",
      exit_code: code,
    });
  });

  it("any other exit → execution_failed with the last stderr lines", async () => {
    const out = await makeExecutor(tempDir()).run({
      requestId: "exit-3",
      tool: "exit_code",
      parameters: { code: 3 },
      timeoutMs: 10_000,
    });
    expect(out).toMatchObject({
      status: "error",
      error_type: "execution_failed",
      exit_code: 3,
      error: "first line: what went wrong\nsecond line",
    });
  });

  it("forwards progress lines (plain and JSON) in order and leaves them out of stderr", async () => {
    const progress: string[] = [];
    const out = await makeExecutor(tempDir()).run({
      requestId: "p-1",
      tool: "progress",
      parameters: {},
      timeoutMs: 10_000,
      onProgress: (t) => progress.push(t),
    });
    expect(progress).toEqual(["50%", "step 2"]);
    expect(out).toMatchObject({ status: "success", result: "done\n", stderr: "an ordinary warning\n" });
  });

  it('parses output = "content" into result and content blocks', async () => {
    const out = await makeExecutor(tempDir()).run({
      requestId: "c-1",
      tool: "content",
      parameters: {},
      timeoutMs: 10_000,
    });
    expect(out).toMatchObject({
      status: "success",
      result: "a picture",
      content: [
        { type: "text", text: "caption" },
        { type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" },
      ],
    });
  });

  it("caps stdout: keeps reading, drops the rest, reports the truncation", async () => {
    const out = await makeExecutor(tempDir(), { outputCapBytes: 1024 * 1024 }).run({
      requestId: "big-1",
      tool: "big",
      parameters: {},
      timeoutMs: 30_000,
    });
    expect(out).toMatchObject({
      status: "success",
      truncated: true,
      bytes_total: 5_000_000,
      bytes_returned: 1024 * 1024,
    });
    expect(Buffer.byteLength((out as { result: string }).result)).toBe(1024 * 1024);
  });

  it("unknown tool → not_found naming the available tools", async () => {
    const out = await makeExecutor(tempDir()).run({
      requestId: "nf-1",
      tool: "nope",
      parameters: {},
      timeoutMs: 1_000,
    });
    expect(out).toMatchObject({ status: "error", error_type: "not_found" });
    expect(out.status === "error" && out.error).toMatch(/^Tool 'nope' not found\. Available tools: .*\becho\b/);
  });

  it("missing required parameter → invalid_params", async () => {
    const out = await makeExecutor(tempDir()).run({
      requestId: "ip-1",
      tool: "echo",
      parameters: {},
      timeoutMs: 1_000,
    });
    expect(out).toMatchObject({
      status: "error",
      error_type: "invalid_params",
      error: expect.stringContaining("'text'"),
    });
  });

  /** A one-tool skill, loaded while its binary is fine, and an executor over it. */
  function loadedOneToolSkill(name: string) {
    const skill = tempDir();
    mkdirSync(join(skill, "bin"));
    writeFileSync(
      join(skill, "skill.toml"),
      `[skill]\nname = "${name}"\n[[tools]]\nname = "${name}"\nbinary = "bin/${name}"\ndescription = "d"\n`,
    );
    const binary = join(skill, "bin", name);
    copyFileSync(join(BASIC, "bin/progress"), binary);
    chmodSync(binary, 0o755);
    const loaded = loadSkills([skill], {
      capabilities: null,
      sandboxing: "auto",
      bwrapUsable: false,
      toolTimeoutCeilingMs: null,
    });
    expect(loaded.tools.has(name)).toBe(true);
    const executor = new ToolExecutor({
      tools: loaded.tools,
      workspace: tempDir(),
      outputCapBytes: 1024,
      killGraceMs: 100,
      sandboxing: "auto",
      bwrap: { usable: false, reason: "test" },
      denyRules: DEFAULT_DENY_RULES,
      toolEnv: {},
      hiddenPaths: [],
    });
    return {
      binary,
      run: () => executor.run({ requestId: `${name}-1`, tool: name, parameters: {}, timeoutMs: 1_000 }),
    };
  }

  it("a binary that vanished after loading → not_found", async () => {
    const tool = loadedOneToolSkill("gone");
    rmSync(tool.binary);
    expect(await tool.run()).toMatchObject({
      status: "error",
      error_type: "not_found",
      error: expect.stringContaining("binary not found"),
    });
  });

  it("a binary that lost its execute bit after loading → permission_denied, naming the binary", async () => {
    const tool = loadedOneToolSkill("nox");
    chmodSync(tool.binary, 0o644);
    expect(await tool.run()).toMatchObject({
      status: "error",
      error_type: "permission_denied",
      error: `Tool 'nox' binary is not executable: ${tool.binary}`,
    });
  });

  it("a workspace that vanished: the spawn fails, and the error does not blame the binary", async () => {
    const ws = tempDir();
    const executor = makeExecutor(ws);
    rmSync(ws, { recursive: true });
    const out = await executor.run({ requestId: "nows-1", tool: "echo", parameters: { text: "hi" }, timeoutMs: 1_000 });
    expect(out).toMatchObject({ status: "error", error: expect.stringContaining("could not be started") });
  });
});

describe("executor: timeouts and cancel end the whole process group", () => {
  it("timeout kills the group, grandchild included", async () => {
    const ws = tempDir();
    const out = await makeExecutor(ws).run({ requestId: "t-1", tool: "group_sleep", parameters: {}, timeoutMs: 1500 });
    expect(out).toMatchObject({
      status: "error",
      error_type: "timeout",
      error: "Tool 'group_sleep' timed out after 1500ms",
    });
    const child = pidIn(join(ws, "child-t-1.pid"));
    const grandchild = pidIn(join(ws, "grandchild-t-1.pid"));
    await waitFor(() => !isAlive(child) && !isAlive(grandchild), "child and grandchild to die");
  });

  it("a tool that ignores SIGTERM still dies, by SIGKILL after the grace period", async () => {
    const ws = tempDir();
    const out = await makeExecutor(ws, { killGraceMs: 300 }).run({
      requestId: "t-2",
      tool: "ignore_term",
      parameters: {},
      timeoutMs: 1500,
    });
    expect(out).toMatchObject({ status: "error", error_type: "timeout" });
    await waitFor(() => !isAlive(pidIn(join(ws, "child-t-2.pid"))), "the SIGTERM-ignoring tool to die");
  });

  it("the command's timeout is clamped to the tool's max_timeout_ms", async () => {
    const executor = makeExecutor(tempDir());
    const loaded = loadSkills([BASIC], {
      capabilities: null,
      sandboxing: "auto",
      bwrapUsable: false,
      toolTimeoutCeilingMs: null,
    });
    const echo = loaded.tools.get("echo")!;
    expect(executor.effectiveTimeout(echo, 10_000_000)).toBe(echo.manifest.max_timeout_ms);
    expect(executor.effectiveTimeout(echo, 1_000)).toBe(1_000);
  });

  it("cancel stops the group and reports error_type cancelled", async () => {
    const ws = tempDir();
    const controller = new AbortController();
    const running = makeExecutor(ws).run({
      requestId: "c-2",
      tool: "group_sleep",
      parameters: {},
      timeoutMs: 60_000,
      signal: controller.signal,
    });
    const grandchildFile = join(ws, "grandchild-c-2.pid");
    await waitFor(() => readLinesSafe(grandchildFile), "the tool to start");
    controller.abort();
    const out = await running;
    expect(out).toMatchObject({ status: "error", error_type: "cancelled" });
    await waitFor(() => !isAlive(pidIn(grandchildFile)), "grandchild to die");
  });
});

function readLinesSafe(file: string): boolean {
  try {
    return readFileSync(file, "utf8").trim().length > 0;
  } catch {
    return false;
  }
}
