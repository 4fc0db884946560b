import { env, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { UNREACHABLE_CLOSE_CODE } from "@edgeloop/protocol";
import { describe, expect, it } from "vitest";
import { connectDevice, deviceView as device, hub, uid, waitFor } from "./support/front-door.js";

/** docs/architecture.md#call-endings and #late-results, as the hub applies them. */

const TIMEOUT_MS = 50;

function command(requestId: string) {
  return {
    request_id: requestId,
    conversation_id: uid("conv-endings"),
    tool_call_id: "call_1",
    tool: "bash",
    parameters: { command: "git commit -m x" },
    timeout_ms: TIMEOUT_MS,
  };
}

type Row = { state: string; outcome: string | null; late: number; ended_by_hub: number };

function ledgerRow(agent: string, requestId: string): Promise<Row> {
  return runInDurableObject(hub(agent), (_o, state) =>
    state.storage.sql
      .exec<Row>("SELECT state, outcome, late, ended_by_hub FROM ledger WHERE request_id = ?", requestId)
      .one(),
  );
}

/** Past the deadline (timeout + DEVICE_RESULT_GRACE_MS), then the alarm. */
async function passDeadline(agent: string): Promise<void> {
  await new Promise((r) => setTimeout(r, TIMEOUT_MS + Number(env.DEVICE_RESULT_GRACE_MS ?? 3000) + 200));
  await runDurableObjectAlarm(hub(agent));
}

async function online(agent: string) {
  const dev = await connectDevice(agent, "s", { DEVICE_TOKENS: `${agent}:s` });
  dev.hello();
  await waitFor(
    () => device(agent),
    (v) => v.online,
  );
  return dev;
}

describe("DeviceHubDO: how a call without a result ends", () => {
  it("a command written to no socket (the device offline throughout) ends not_sent", async () => {
    const agent = uid("pi-off");
    const requestId = uid("req-off");
    await hub(agent).dispatch(command(requestId));
    await passDeadline(agent);
    const row = await ledgerRow(agent, requestId);
    expect(row.state).toBe("done");
    expect(JSON.parse(row.outcome!)).toMatchObject({ status: "error", error_type: "not_sent" });
    const audit = await hub(agent).queryAudit({ limit: 10 });
    expect(audit.map((a) => [a.request_id, a.error_type])).toEqual([[requestId, "not_sent"]]);
  });

  it("a device its bridge found unreachable (4020) is offline with the reason, which its not_sent call carries", async () => {
    const agent = uid("pi-deaf");
    const dev = await online(agent);
    const reason = "the EvoClaw agent did not answer ping: restart the agent";
    dev.ws.close(UNREACHABLE_CLOSE_CODE, reason);
    const view = await waitFor(
      () => device(agent),
      (v) => !v.online,
    );
    expect(view.offline_reason).toBe(reason);
    const requestId = uid("req-deaf");
    await hub(agent).dispatch(command(requestId));
    await passDeadline(agent);
    const row = await ledgerRow(agent, requestId);
    expect(JSON.parse(row.outcome!)).toMatchObject({ error_type: "not_sent", error: expect.stringContaining(reason) });
    // Back (it answered again): no reason any more.
    const again = await online(agent);
    expect((await device(agent)).offline_reason).toBeNull();
    again.ws.close(1000, "done");
    expect(
      await waitFor(
        () => device(agent),
        (v) => !v.online,
      ),
    ).toMatchObject({ offline_reason: null });
  });

  it("a command written to the socket but never acknowledged ends outcome_unknown, and a cancel is sent", async () => {
    const agent = uid("pi-mute");
    const dev = await online(agent);
    const requestId = uid("req-mute");
    await hub(agent).dispatch(command(requestId));
    await dev.next((f) => f.type === "command");
    await passDeadline(agent);
    const outcome = JSON.parse((await ledgerRow(agent, requestId)).outcome!);
    expect(outcome).toMatchObject({ error_type: "outcome_unknown" });
    expect(outcome.error).toContain("the device did not confirm it");
    expect((await dev.next((f) => f.command === "cancel")).request_id).toBe(requestId);
    dev.ws.close(1000, "done");
  });

  it("a command the device acknowledged (accepted) and never answered ends outcome_unknown", async () => {
    const agent = uid("pi-slow");
    const dev = await online(agent);
    const requestId = uid("req-slow");
    await hub(agent).dispatch(command(requestId));
    await dev.next((f) => f.type === "command");
    dev.ws.send(JSON.stringify({ type: "accepted", request_id: requestId }));
    await waitFor(
      () => device(agent),
      (v) => v.commands.accepted === 1,
    );
    await passDeadline(agent);
    const outcome = JSON.parse((await ledgerRow(agent, requestId)).outcome!);
    expect(outcome).toMatchObject({ error_type: "outcome_unknown" });
    expect(outcome.error).toContain("the device took the command");
    dev.ws.close(1000, "done");
  });

  it("the device's result after the ending is kept as a late result, acknowledged, audited, once", async () => {
    const agent = uid("pi-late");
    const dev = await online(agent);
    const requestId = uid("req-late");
    await hub(agent).dispatch(command(requestId));
    await dev.next((f) => f.type === "command");
    await passDeadline(agent);
    const result = {
      type: "result",
      request_id: requestId,
      status: "success",
      tool: "bash",
      result: "[main 1a2b3c] x",
      stderr: "",
      exit_code: 0,
      elapsed_ms: 900,
    };
    dev.ws.send(JSON.stringify(result));
    expect((await dev.next((f) => f.type === "ack")).request_ids).toEqual([requestId]);
    const row = await ledgerRow(agent, requestId);
    expect(row).toMatchObject({ state: "done", late: 1, ended_by_hub: 1 });
    // The call's ending stays what the conversation was told.
    expect(JSON.parse(row.outcome!)).toMatchObject({ error_type: "outcome_unknown" });
    const audit = await hub(agent).queryAudit({ limit: 10 });
    expect(audit.find((a) => a.request_id === `${requestId}.late`)).toMatchObject({ tool: "bash" });
    // One call in the tool's metrics, as it ended: the late row is not a second call.
    expect(await hub(agent).toolMetrics(0)).toMatchObject([
      { tool: "bash", total: 1, success: 0, errors_by_type: { outcome_unknown: 1 } },
    ]);
    // A repeat is a duplicate, as for any result.
    dev.ws.send(JSON.stringify(result));
    const view = await waitFor(
      () => device(agent),
      (v) => (v.counters.duplicate_results ?? 0) === 1,
    );
    expect(view.counters.late_results).toBe(1);
    dev.ws.close(1000, "done");
  });
});
