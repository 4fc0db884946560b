import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { InvokeRequest } from "../helpers/openclaw-node.js";
import { hub, uid, waitFor } from "./support/front-door.js";
import { dial, ledgerRow, paired, run } from "./support/openclaw.js";

/** docs/openclaw-nodes.md#acting-on-a-node: a Claude CLI turn's output, kept by the node's hub. */

const kept = (agent: string) =>
  runInDurableObject(hub(agent), (_o, state) =>
    state.storage.sql.exec<{ request_id: string; text: string }>("SELECT * FROM openclaw_output").toArray(),
  );

describe("an OpenClaw node's Claude CLI turns", () => {
  it("what a turn prints as progress is its result; other commands' progress is not kept, nor a cut turn's", async () => {
    const agent = uid("oc-claude");
    let hold = true;
    const commands = ["agent.cli.claude.run.v1", "system.run"];
    const onInvoke = async (req: InvokeRequest) => {
      const say = (seq: number, chunk: string) =>
        node.request("node.invoke.progress", { invokeId: req.id, nodeId: req.nodeId, seq, chunk });
      if (req.command === "system.run") {
        await say(0, "running");
        return { ok: true, payload: { exitCode: 0, success: true, stdout: "ok", stderr: "" } };
      }
      // Read before the progress goes out: the test lets go of `hold` once the hub has kept this turn's progress,
      // which can be before the node's last `say` has its answer.
      const held = hold && req.id === "oc-claude-2";
      await say(0, "Hello, ");
      await say(1, "");
      await say(2, "world");
      if (held) return null;
      return { ok: true, payloadJSON: JSON.stringify({ exitCode: 0, stderrTail: "", truncated: false }) };
    };
    const { node, key } = await paired(agent, { commands, onInvoke });
    const claude = { tool: "agent_cli_claude_run_v1" };
    await hub(agent).dispatch({ ...run("oc-claude-1", { argv: ["-p"], stdin: "hi" }, 60_000), ...claude });
    const done = await waitFor(
      () => ledgerRow(agent, "oc-claude-1"),
      (r) => r.state === "done",
    );
    expect(JSON.parse(done.outcome!)).toMatchObject({ status: "success", result: "Hello, world" });
    const sent = JSON.parse(node.invokes[0]!.paramsJSON!);
    expect(sent).toEqual({ argv: ["-p"], stdin: "hi", idleTimeoutMs: 60_000, timeoutMs: 60_000 });
    expect(await kept(agent)).toEqual([]);

    await hub(agent).dispatch(run("oc-claude-run", { command: ["true"] }));
    await waitFor(
      () => ledgerRow(agent, "oc-claude-run"),
      (r) => r.state === "done",
    );
    expect(await kept(agent)).toEqual([]);

    // A turn whose node signs in again before its result: it ends outcome_unknown, its output is dropped.
    await hub(agent).dispatch({ ...run("oc-claude-2", { argv: ["-p"], stdin: "hi" }, 60_000), ...claude });
    await waitFor(
      () => kept(agent),
      (rows) => rows[0]?.text === "Hello, world",
    );
    hold = false;
    const back = await dial(agent, { commands, key, auth: { deviceToken: node.deviceToken() } });
    expect((await back.node.connect()).ok).toBe(true);
    const cut = await waitFor(
      () => ledgerRow(agent, "oc-claude-2"),
      (r) => r.state === "done",
    );
    expect(JSON.parse(cut.outcome!)).toMatchObject({ status: "error", error_type: "outcome_unknown" });
    expect(await kept(agent)).toEqual([]);
    back.node.ws.close(1000, "done");
  });
});
