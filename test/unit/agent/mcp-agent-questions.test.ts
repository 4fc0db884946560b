/**
 * A device MCP server's question (`elicitation/create`) through the real edgeloop-agent process,
 * driven by a fake hub so each frame can be checked exactly: the agent declares form-mode
 * elicitation to its server, sends the question as an `elicitation` frame tied to the running
 * command, gives the server the hub's `elicitation_answer`, sends an open question again after a
 * reconnect, and answers the server `cancel` itself when the call ends first (its timeout, a cancel).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BOOKING_FORM } from "../../fixtures/mcp/asking-forms.mjs";
import { AGENT_BIN, FakeHub, REPO, tempDir, toolCommand, waitFor } from "./helpers.js";

const SERVER = join(REPO, "test/fixtures/mcp/asking-stdio-server.mjs");
let hub: FakeHub;
let agent: ChildProcess;
let exited: Promise<unknown>;
let answersFile: string;

const questionsFor = (id: string) => hub.allFrames().filter((f) => f.type === "elicitation" && f.request_id === id);
const question = (id: string, n = 1) => waitFor(() => questionsFor(id)[n - 1], `question #${n} of ${id}`, 20_000);
const result = (id: string) => waitFor(() => hub.results(id)[0], `result of ${id}`, 30_000);
const told = () => {
  try {
    return readFileSync(answersFile, "utf8");
  } catch {
    return "";
  }
};

beforeAll(async () => {
  hub = await FakeHub.start();
  const root = tempDir();
  answersFile = join(root, "answers.txt");
  const dir = join(root, "ask");
  mkdirSync(dir, { recursive: true });
  const mcp = [
    `command = ["node", "${SERVER}"]`,
    `env = { ANSWERS_FILE = "${answersFile}" }`,
    "max_timeout_ms = 120000",
  ];
  writeFileSync(join(dir, "skill.toml"), `[skill]\nname = "ask"\n\n[mcp]\n${mcp.join("\n")}\n`);
  agent = spawn(
    process.execPath,
    [
      AGENT_BIN,
      ...["--url", hub.url, "--agent-id", "pi-ask", "--token", "t", "--workspace", tempDir()],
      ...["--skills", dir, "--reconnect-min-ms", "100", "--reconnect-max-ms", "300"],
    ],
    { env: { PATH: process.env.PATH, HOME: process.env.HOME }, stdio: ["ignore", "ignore", "ignore"] },
  );
  exited = new Promise((r) => agent.on("exit", r));
  await waitFor(() => hub.allFrames().find((f) => f.type === "hello"), "hello", 40_000);
}, 45_000);

afterAll(async () => {
  agent?.kill("SIGTERM");
  await exited;
  await hub?.close();
});

describe("agent: a device MCP server's question", () => {
  it("goes to the hub tied to its command, and the hub's answer reaches the server", async () => {
    hub.send(toolCommand("q-1", "book_table", {}, 60_000));
    const asked = await question("q-1");
    expect(asked).toEqual({
      type: "elicitation",
      request_id: "q-1",
      elicitation_id: expect.any(String),
      server: "ask",
      message: "Who is the table for?",
      requested_schema: BOOKING_FORM,
    });
    // An answer for another question is dropped; the right one is given to the server.
    hub.send({ type: "elicitation_answer", request_id: "q-1", elicitation_id: "not-asked", action: "decline" });
    const content = { name: "Ada", guests: 3, seating: "terrace" };
    hub.send({
      type: "elicitation_answer",
      request_id: "q-1",
      elicitation_id: asked.elicitation_id,
      action: "accept",
      content,
    });
    expect(await result("q-1")).toMatchObject({ status: "success", result: `accept ${JSON.stringify(content)}` });
  });

  it("is sent again, with the same id, after a reconnect, and answered on the new socket", async () => {
    hub.send(toolCommand("q-2", "pick_region", {}, 60_000));
    const asked = await question("q-2");
    const before = hub.conns.length;
    hub.last!.socket.terminate();
    const again = await question("q-2", 2);
    expect(hub.conns.length).toBe(before + 1);
    expect(again).toEqual(asked);
    // After the new socket's hello, as results are.
    const frames = hub.last!.frames;
    expect(frames.findIndex((f) => f.type === "hello")).toBeLessThan(frames.indexOf(again));
    hub.send({
      type: "elicitation_answer",
      request_id: "q-2",
      elicitation_id: asked.elicitation_id,
      action: "decline",
    });
    expect(await result("q-2")).toMatchObject({ status: "success", result: "decline" });
  });

  it("is answered `cancel` when the call times out first, and when the hub cancels the call", async () => {
    hub.send(toolCommand("q-3", "pick_region", {}, 1_500));
    const asked = await question("q-3");
    expect(await result("q-3")).toMatchObject({ status: "error", error_type: "timeout" });
    await waitFor(() => told().includes("pick_region: cancel\n"), "the server told cancel");
    // A late answer finds nothing open: the server is told nothing more.
    hub.send({
      type: "elicitation_answer",
      request_id: "q-3",
      elicitation_id: asked.elicitation_id,
      action: "decline",
    });

    hub.send(toolCommand("q-4", "book_table", {}, 60_000));
    await question("q-4");
    hub.send({ type: "command", command: "cancel", request_id: "q-4" });
    expect(await result("q-4")).toMatchObject({ status: "error", error_type: "cancelled" });
    await waitFor(() => told().includes("book_table: cancel\n"), "the server told cancel");
    expect(told().trim().split("\n")).toEqual([
      'book_table: accept {"name":"Ada","guests":3,"seating":"terrace"}',
      "pick_region: decline",
      "pick_region: cancel",
      "book_table: cancel",
    ]);
  });
});
