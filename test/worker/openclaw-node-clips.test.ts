import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { ADMIN, call, hub, uid, waitFor } from "./support/front-door.js";
import { dial, ledgerRow, paired, run } from "./support/openclaw.js";

/** docs/openclaw-nodes.md#clips: a node's recording stored by its hub, linked, and given a poster. */

describe("OpenClaw nodes' clips", () => {
  it("a clip whose poster never comes ends with its link when the node reconnects; without the command, no poster", async () => {
    const agent = uid("oc-clip");
    // Bytes the hub stores and serves as they are; it never decodes a clip.
    const bytes = new Uint8Array([0, 0, 0, 24, 102, 116, 121, 112, 109, 112, 52, 50, 1, 2, 3, 4]);
    const base64 = btoa(String.fromCharCode(...bytes));
    const phone = {
      commands: ["camera.clip", "camera.snap", "screen.record"],
      // The clip comes back; the still never does.
      onInvoke: (req: { command: string }) =>
        req.command === "camera.snap"
          ? null
          : { ok: true, payload: { format: "mp4", base64, durationMs: 500, hasAudio: true } },
    };
    const { node, key } = await paired(agent, phone);
    await hub(agent).dispatch({ ...run("oc-clip-1", { facing: "back" }), tool: "camera_clip" });
    const poster = await node.next(
      (f) => f.type === "event" && (f.payload as { id?: string }).id === "oc-clip-1:poster",
      "the poster's invoke",
    );
    expect(poster.payload).toMatchObject({ command: "camera.snap", timeoutMs: 15_000 });
    const back = await dial(agent, { ...phone, key, auth: { deviceToken: node.deviceToken() } });
    expect((await back.node.connect()).ok).toBe(true);
    const row = await waitFor(
      () => ledgerRow(agent, "oc-clip-1"),
      (r) => r.state === "done",
    );
    const outcome = JSON.parse(row.outcome!) as { status: string; result: string; content?: unknown };
    expect(outcome.status).toBe("success");
    expect(outcome.result).toContain("No poster: the still was not taken: the node signed in again.");
    expect(outcome.content).toBeUndefined();
    const link = new URL(/http:\/\/\S+\/clips\/[0-9a-f]{64}/.exec(outcome.result)![0]);
    expect(link.pathname).toMatch(new RegExp(`^/v1/devices/${agent}/clips/`));
    const served = await call(link.pathname, { headers: ADMIN });
    expect(served.status).toBe(200);
    expect(new Uint8Array(await served.arrayBuffer())).toEqual(bytes);
    expect((await call(link.pathname)).status).toBe(401);

    // A node that cannot take a screenshot: the recording's link, and why there is no poster.
    await hub(agent).dispatch({ ...run("oc-clip-2", {}), tool: "screen_record" });
    const done = await waitFor(
      () => ledgerRow(agent, "oc-clip-2"),
      (r) => r.state === "done",
    );
    expect(JSON.parse(done.outcome!).result).toContain("No poster: the node does not advertise screen.snapshot.");
    back.node.ws.close(1000, "done");
  });

  it("a clip that comes after its call was cancelled is kept as a late result, and no still is taken", async () => {
    const agent = uid("oc-clip-late");
    let release = () => {};
    const later = new Promise<void>((r) => (release = r));
    const answer = {
      ok: true,
      payload: { format: "mp4", base64: btoa("late clip"), durationMs: 500, hasAudio: false },
    };
    const { node } = await paired(agent, {
      commands: ["camera.clip", "camera.snap"],
      onInvoke: (req) => (req.command === "camera.clip" ? later.then(() => answer) : null),
    });
    await hub(agent).dispatch({ ...run("oc-clip-3", {}), tool: "camera_clip" });
    await node.next((f) => f.type === "event" && f.event === "node.invoke.request", "the clip's invoke");
    await hub(agent).cancel("oc-clip-3");
    await waitFor(
      () => ledgerRow(agent, "oc-clip-3"),
      (r) => r.state === "done",
    );
    release();
    const late = await waitFor(
      () =>
        runInDurableObject(hub(agent), (_o, state) =>
          state.storage.sql
            .exec<{ late: number | null }>("SELECT late FROM ledger WHERE request_id = ?", "oc-clip-3")
            .one(),
        ),
      (r) => r.late === 1,
    );
    expect(late.late).toBe(1);
    const waiting = await runInDurableObject(hub(agent), (_o, state) => ({
      posters: state.storage.sql.exec("SELECT * FROM clip_posters").toArray().length,
      clips: state.storage.sql.exec("SELECT * FROM clips").toArray().length,
    }));
    expect(waiting).toEqual({ posters: 0, clips: 1 });
    expect(node.invokes.map((i) => i.id)).toEqual(["oc-clip-3"]);
    node.ws.close(1000, "done");
  });
});
