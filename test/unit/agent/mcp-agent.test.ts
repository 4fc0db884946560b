/**
 * An MCP server as a skill: the real edgeloop-agent process with the reference filesystem and
 * "everything" servers from npm (and, for tools/list_changed, a small SDK server fixture), driven
 * by a fake hub so each frame can be checked exactly.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { probeBwrap } from "../../../device-agent/src/sandbox/bubblewrap.js";
import { AGENT_BIN, BASIC, FakeHub, isAlive, REPO, tempDir, toolCommand, waitFor } from "./helpers.js";

const SERVERS = join(REPO, "node_modules/@modelcontextprotocol");
const HIDDEN_SERVER = `import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
const server = new McpServer({ name: "hidden", version: "1.0.0" });
server.registerTool("hidden_hello", { description: "Says where it runs" }, async () => ({
  content: [{ type: "text", text: "hello from a folder the sandbox hides" }],
}));
await server.connect(new StdioServerTransport());
`;
let hub: FakeHub;
let agent: ChildProcess;
let exited: Promise<unknown>;
const logs: Record<string, unknown>[] = [];
let ws: string;

function skill(root: string, name: string, mcp: string): string {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "skill.toml"), `[skill]\nname = "${name}"\n\n[mcp]\n${mcp}\n`);
  return dir;
}

const results = (id: string) => hub.results(id);
async function run(id: string, tool: string, parameters: Record<string, unknown>, timeoutMs = 20_000) {
  hub.send(toolCommand(id, tool, parameters, timeoutMs));
  return waitFor(() => results(id)[0], `result of ${id}`, 30_000);
}
const pidsOf = (skillName: string) =>
  logs.filter((l) => l.msg === "mcp server ready" && l.skill === skillName).map((l) => l.pid as number);

beforeAll(async () => {
  hub = await FakeHub.start();
  ws = tempDir();
  const skills = tempDir();
  const fs = skill(
    skills,
    "fs",
    `command = ["node", "${SERVERS}/server-filesystem/dist/index.js", "{workspace}"]\npermissions = ["file_read", "file_write"]\nsandboxing = "bubblewrap"\ncategory = "file"`,
  );
  const every = skill(skills, "every", `command = ["node", "${SERVERS}/server-everything/dist/index.js", "stdio"]`);
  const grow = skill(skills, "grow", `command = ["node", "${REPO}/test/fixtures/mcp/tool-adding-server.mjs"]`);
  // A sandboxed server kept where the sandbox hides things (/tmp here; ~ on a device), loading
  // its packages through a node_modules folder beside it: the sandbox must show it both.
  const pkg = tempDir();
  symlinkSync(join(REPO, "node_modules"), join(pkg, "node_modules"));
  writeFileSync(join(pkg, "server.mjs"), HIDDEN_SERVER);
  const hidden = skill(skills, "hidden", `command = ["node", "${pkg}/server.mjs"]\nsandboxing = "bubblewrap"`);
  agent = spawn(
    process.execPath,
    [
      AGENT_BIN,
      ...["--url", hub.url, "--agent-id", "pi-mcp", "--token", "t", "--workspace", ws],
      ...[BASIC, fs, every, grow, hidden].flatMap((s) => ["--skills", s]),
    ],
    { env: { PATH: process.env.PATH, HOME: process.env.HOME, EDGELOOP_TOKEN: "t" }, stdio: ["ignore", "pipe", "pipe"] },
  );
  let partial = "";
  agent.stdout!.on("data", (d: Buffer) => {
    const lines = (partial + d.toString()).split("\n");
    partial = lines.pop()!;
    for (const line of lines) logs.push(JSON.parse(line));
  });
  agent.stderr!.on("data", () => {});
  exited = new Promise((r) => agent.on("exit", r));
  await waitFor(() => hub.allFrames().find((f) => f.type === "hello"), "hello", 40_000);
  // As long as the wait above: the agent and its MCP servers start slowly on a loaded machine.
}, 45_000);

afterAll(async () => {
  agent.kill("SIGTERM");
  await exited;
  await hub.close();
});

describe("an MCP server as a device skill", { timeout: 60_000 }, () => {
  it("advertises the servers' tools in hello: prefixed on a clash, schemas cut to the validator's subset", () => {
    const hello = hub.allFrames().find((f) => f.type === "hello");
    const tools = (name: string) => hello.skills.find((s: { name: string }) => s.name === name).tools;
    const read = tools("fs").find((t: { name: string }) => t.name === "read_text_file");
    expect(read).toMatchObject({
      binary: "mcp:read_text_file",
      category: "file",
      permissions: ["file_read", "file_write"],
      sandboxing: "bubblewrap",
      parameters: { type: "object", required: ["path"], properties: { path: { type: "string" } } },
    });
    // The fixture skill's bin tool `echo` came first, so the server's echo is prefixed.
    expect(tools("fixture-basic").map((t: { name: string }) => t.name)).toContain("echo");
    expect(tools("every").map((t: { name: string }) => t.name)).toContain("every__echo");
    expect(hello.filtered).toContainEqual({
      skill: "every",
      tool: "simulate-research-query",
      reason: "needs MCP tasks, which this agent does not use",
    });
    expect(hello.capabilities).toEqual(expect.arrayContaining(["file_read", "file_write"]));
    // What was cut from a schema is logged, with the reason.
    const cut = logs.find(
      (l) => l.msg === "mcp tool schema cut down to what the validator checks" && l.tool === "read_multiple_files",
    );
    expect(cut?.dropped).toEqual(["paths: 'minItems' not supported by the validator (checked by the server)"]);
  });

  it("a sandboxed server kept in a folder the sandbox hides still runs: its files and packages are shown read-only", async () => {
    const hello = hub.allFrames().find((f) => f.type === "hello");
    const hidden = hello.skills.find((s: { name: string }) => s.name === "hidden");
    expect(hidden?.tools.map((t: { name: string }) => t.name)).toEqual(["hidden_hello"]);
    const out = await run("mcp-hidden-1", "hidden_hello", {});
    expect(out).toMatchObject({ status: "success", result: "hello from a folder the sandbox hides" });
  });

  it("runs a call once: a repeated request id is answered from the result store, never sent to the server again", async () => {
    const file = join(ws, "once.txt");
    const first = await run("m-once", "write_file", { path: file, content: "from the model" });
    expect(first).toMatchObject({ status: "success", tool: "write_file" });
    expect(readFileSync(file, "utf8")).toBe("from the model");
    writeFileSync(file, "changed since");
    hub.send(toolCommand("m-once", "write_file", { path: file, content: "from the model" }));
    await waitFor(() => results("m-once").length === 2, "the stored result", 30_000);
    expect(results("m-once")[1]).toEqual(first);
    expect(readFileSync(file, "utf8")).toBe("changed since");
    expect(
      logs.some((l) => l.msg === "duplicate command: sending the stored result" && l.request_id === "m-once"),
    ).toBe(true);
  });

  it("maps results: isError is execution_failed with the server's text, images stay images", async () => {
    const denied = await run("m-denied", "read_text_file", { path: "/etc/hostname" });
    expect(denied).toMatchObject({ status: "error", error_type: "execution_failed" });
    expect(denied.error).toMatch(/outside allowed directories/);
    const image = await run("m-image", "get-tiny-image", {});
    expect(image.status).toBe("success");
    expect(image.content.map((b: { type: string }) => b.type)).toEqual(["text", "image", "text"]);
    expect(image.content[1]).toMatchObject({ type: "image", mimeType: "image/png" });
  });

  it("MCP progress becomes progress frames; cancel and timeout stop the request", async () => {
    const done = await run("m-progress", "trigger-long-running-operation", { duration: 1, steps: 3 });
    expect(done).toMatchObject({ status: "success" });
    const progress = hub.allFrames().filter((f) => f.type === "progress" && f.request_id === "m-progress");
    expect(progress.map((f) => f.content[0].text)).toEqual(expect.arrayContaining(["1/3", "2/3"]));

    hub.send(toolCommand("m-cancel", "trigger-long-running-operation", { duration: 20, steps: 20 }));
    await waitFor(() => hub.allFrames().find((f) => f.type === "progress" && f.request_id === "m-cancel"), "running");
    hub.send({ type: "command", command: "cancel", request_id: "m-cancel" });
    const cancelled = await waitFor(() => results("m-cancel")[0], "cancelled result");
    expect(cancelled).toMatchObject({ status: "error", error_type: "cancelled" });

    const late = await run("m-timeout", "trigger-long-running-operation", { duration: 20, steps: 2 }, 800);
    expect(late).toMatchObject({ status: "error", error_type: "timeout", error: expect.stringContaining("800ms") });
  });

  it("runs a sandboxed server inside bwrap, with the tool environment (secrets withheld)", async () => {
    const bwrap = probeBwrap();
    expect(bwrap.usable, "bubblewrap must be usable on the test machine").toBe(true);
    const cmdline = readFileSync(`/proc/${pidsOf("fs")[0]}/cmdline`, "utf8").split("\0");
    expect(cmdline[0]).toBe(bwrap.usable ? bwrap.path : "");
    expect(cmdline).toContain(ws);
    const env = await run("m-env", "get-env", {});
    const vars = JSON.parse(env.result) as Record<string, string>;
    expect(vars.EDGELOOP_WORKSPACE).toBe(ws);
    expect(vars.EDGELOOP_TOKEN).toBeUndefined();
  });

  it("a server that dies is restarted with backoff; its tools answer unavailable meanwhile", async () => {
    const [pid] = pidsOf("every");
    process.kill(pid!, "SIGKILL");
    await waitFor(() => !isAlive(pid!) && logs.some((l) => l.msg === "mcp server exited"), "the server to die");
    const down = await run("m-down", "every__echo", { message: "hi" });
    expect(down).toMatchObject({ status: "error", error_type: "unavailable" });
    expect(down.error).toMatch(/MCP server of skill 'every' is not running/);
    await waitFor(() => pidsOf("every").length === 2, "the restart", 30_000);
    const back = await run("m-back", "every__echo", { message: "hi again" });
    expect(back).toMatchObject({ status: "success", result: "Echo: hi again" });
  });

  it("tools/list_changed sends a manifest_update with the new tools", async () => {
    const added = await run("m-add", "add_tool", { name: "late_tool" });
    expect(added).toMatchObject({ status: "success", result: "added late_tool" });
    const update = await waitFor(
      () => hub.allFrames().find((f) => f.type === "manifest_update"),
      "a manifest_update frame",
    );
    const grow = update.skills.find((s: { name: string }) => s.name === "grow");
    expect(grow.tools.map((t: { name: string }) => t.name)).toEqual(["add_tool", "late_tool"]);
    expect(await run("m-late", "late_tool", {})).toMatchObject({ status: "success", result: "i am late_tool" });
  });
});
