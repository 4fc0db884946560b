import { runDurableObjectAlarm } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { makeNodeKey } from "../helpers/openclaw-node.js";
import { ADMIN, call, deviceView as device, hub, uid, waitFor } from "./support/front-door.js";
import { dial, errorCode, ledgerRow, paired, run, setup } from "./support/openclaw.js";

/** docs/openclaw-nodes.md: a node written from OpenClaw's protocol, through the worker's /v1/openclaw route. */

describe("OpenClaw nodes", () => {
  it("a setup code pairs a node once: it gets a device token, and its commands become tools", async () => {
    const agent = uid("oc-setup");
    const s = await setup(agent);
    expect(s.gateway_url).toBe(`ws://edgeloop.test/v1/openclaw/${agent}`);
    expect(s.run).toBe(`openclaw node run --pair oc-pair://${s.setup_code}`);
    expect(s.connect).toBe(`openclaw connect ${s.join_url}`);
    const payload = JSON.parse(atob(s.setup_code.replace(/-/g, "+").replace(/_/g, "/"))) as Record<string, unknown>;
    expect(payload.url).toBe(s.gateway_url);
    // The join URL answers OpenClaw's setup payload while the code is live.
    const join = await call(new URL(s.join_url).pathname);
    expect(join.headers.get("content-type")).toMatch(/^application\/json/);
    expect(await join.json()).toEqual(payload);

    const key = await makeNodeKey();
    const first = await dial(agent, { key, auth: { bootstrapToken: String(payload.bootstrapToken) } });
    const hello = await first.node.connect();
    expect(hello.ok).toBe(true);
    const helloPayload = hello.payload as {
      type: string;
      protocol: number;
      auth: { deviceToken?: string };
      policy: object;
    };
    expect(helloPayload).toMatchObject({ type: "hello-ok", protocol: 4, policy: { tickIntervalMs: 30_000 } });
    expect(helloPayload.auth.deviceToken).toMatch(/^edl_/);
    const view = await waitFor(
      () => device(agent),
      (v) => v.online,
    );
    expect(view.skills.flatMap((sk) => sk.tools.map((t) => t.name))).toEqual(["system_run", "system_which"]);
    expect(view.tokens).toBe(1);

    // Used once: the same code again is refused, and the join URL no longer answers.
    const again = await dial(agent, {
      key: await makeNodeKey(),
      auth: { bootstrapToken: String(payload.bootstrapToken) },
    });
    const refused = await again.node.connect();
    expect(refused.ok).toBe(false);
    expect(errorCode(refused)).toBe("AUTH_BOOTSTRAP_TOKEN_INVALID");
    expect((await again.closed).code).toBe(1008);
    expect((await call(new URL(s.join_url).pathname)).status).toBe(404);

    // The token it was given lets it back in; its key stays pinned.
    first.node.ws.close(1000, "restart");
    const back = await dial(agent, { key, auth: { deviceToken: helloPayload.auth.deviceToken } });
    const helloBack = await back.node.connect();
    expect(helloBack.ok).toBe(true);
    expect((helloBack.payload as { auth: { deviceToken?: string } }).auth.deviceToken).toBeUndefined();
    back.node.ws.close(1000, "done");
  });

  it("a node with only its device key waits for an admin's approval, then gets its token", async () => {
    const agent = uid("oc-approve");
    const key = await makeNodeKey();
    const first = await dial(agent, { key });
    const waiting = await first.node.connect();
    expect(waiting.ok).toBe(false);
    const details = (waiting.error as { details: Record<string, unknown> }).details;
    expect(details).toMatchObject({
      code: "PAIRING_REQUIRED",
      recommendedNextStep: "wait_then_retry",
      pauseReconnect: false,
    });
    await first.closed;

    // It waits as a pairing request of kind openclaw, with its key: the same list `edgeloop devices pending` shows.
    const list = (await (await call("/v1/pairing", { headers: ADMIN })).json()) as {
      pending: { code: string; agent_id: string; kind: string; public_key: string | null }[];
    };
    const mine = list.pending.find((r) => r.code === details.requestId)!;
    expect(mine).toMatchObject({ agent_id: agent, kind: "openclaw" });
    expect(mine.public_key).toBeTruthy();
    // Still waiting: the same code again, no second request.
    const retry = await dial(agent, { key });
    expect(((await retry.node.connect()).error as { details: { requestId: string } }).details.requestId).toBe(
      details.requestId,
    );
    // Only an admin approves.
    const noAuth = await call(`/v1/pairing/${details.requestId}/approve`, { method: "POST" });
    expect(noAuth.status).toBe(401);
    const approve = await call(`/v1/pairing/${details.requestId}/approve`, {
      method: "POST",
      headers: { ...ADMIN, "content-type": "application/json" },
      body: "{}",
    });
    expect(approve.status).toBe(200);

    const second = await dial(agent, { key });
    const hello = await second.node.connect();
    expect(hello.ok).toBe(true);
    expect((hello.payload as { auth: { deviceToken?: string } }).auth.deviceToken).toMatch(/^edl_/);
    // Another key on this agent id is not let in by the approval of the first.
    const stranger = await dial(agent, { key: await makeNodeKey() });
    expect(errorCode(await stranger.node.connect())).toBe("PAIRING_REQUIRED");
    second.node.ws.close(1000, "done");
  });

  it("refuses a bad signature, a protocol it does not speak, and a first frame that is not connect", async () => {
    const agent = uid("oc-refuse");
    const forged = await dial(agent, { key: await makeNodeKey(), tamper: (p) => `${p}x` });
    expect(errorCode(await forged.node.connect())).toBe("DEVICE_AUTH_SIGNATURE_INVALID");
    const early = await dial(agent, { key: await makeNodeKey() });
    const res = await early.node.request("node.event", { event: "x" });
    expect(res).toMatchObject({ ok: false, error: { code: "INVALID_REQUEST" } });
    expect((await early.closed).code).toBe(1008);
    const tooNew = await dial(agent, { key: await makeNodeKey(), protocols: { min: 5, max: 5 } });
    expect(errorCode(await tooNew.node.connect())).toBe("PROTOCOL_MISMATCH");
    // The two refused sign-ins are counted (the early frame is a protocol error, answered and closed).
    expect((await device(agent)).counters.openclaw_refused).toBe(2);
  });

  it("maps a call to node.invoke.request and its result back, once, and answers every request", async () => {
    const agent = uid("oc-invoke");
    const { node } = await paired(agent, {
      onInvoke: (req) => ({
        ok: true,
        payloadJSON: JSON.stringify({
          exitCode: 0,
          timedOut: false,
          success: true,
          stdout: `ran ${req.paramsJSON}`,
          stderr: "",
        }),
      }),
    });
    await hub(agent).dispatch(run("oc-req-1", { command: ["echo", "hi"], cwd: "/tmp" }, 5000));
    const invoke = await node.next((f) => f.type === "event" && f.event === "node.invoke.request", "invoke");
    expect(invoke.payload).toEqual({
      id: "oc-req-1",
      nodeId: node.invokes[0]!.nodeId,
      command: "system.run",
      paramsJSON: JSON.stringify({ command: ["echo", "hi"], cwd: "/tmp", timeoutMs: 5000 }),
      timeoutMs: 5000,
      idempotencyKey: "oc-req-1",
    });
    const row = await waitFor(
      () => ledgerRow(agent, "oc-req-1"),
      (r) => r.state === "done",
    );
    expect(JSON.parse(row.outcome!)).toMatchObject({ status: "success", tool: "system_run", exit_code: 0 });
    expect(JSON.parse(row.outcome!).result).toContain('"command":["echo","hi"]');
    // Published MCP tools become tools; unknown methods get an error response, not silence.
    expect(await node.request("node.pluginTools.update", { tools: [] })).toMatchObject({ ok: true });
    expect(await node.request("no.such.method", {})).toMatchObject({
      ok: false,
      error: { code: "INVALID_REQUEST", message: "unknown method: no.such.method" },
    });
    expect(await node.request("node.event", { event: "node.host.stats", payloadJSON: "{}" })).toMatchObject({
      ok: true,
    });
    node.ws.close(1000, "done");
  });

  it("a command whose connection is cut ends outcome_unknown at once and is never sent again", async () => {
    const agent = uid("oc-cut");
    const key = await makeNodeKey();
    const s = await setup(agent);
    const bootstrapToken = String(
      (JSON.parse(atob(s.setup_code.replace(/-/g, "+").replace(/_/g, "/"))) as { bootstrapToken: string })
        .bootstrapToken,
    );
    const first = await dial(agent, { key, auth: { bootstrapToken } });
    await first.node.connect();
    await waitFor(
      () => device(agent),
      (v) => v.online,
    );
    await hub(agent).dispatch(run("oc-cut-1", { command: ["sleep", "30"] }));
    await first.node.next((f) => f.type === "event" && f.event === "node.invoke.request", "invoke");
    // The node reconnects (its old socket gone): what it was running is lost, and it says nothing.
    const second = await dial(agent, { key, auth: { deviceToken: first.node.deviceToken() } });
    expect((await second.node.connect()).ok).toBe(true);
    const row = await waitFor(
      () => ledgerRow(agent, "oc-cut-1"),
      (r) => r.state === "done",
    );
    expect(JSON.parse(row.outcome!)).toMatchObject({ status: "error", error_type: "outcome_unknown" });
    await new Promise((r) => setTimeout(r, 200));
    expect(second.node.invokes).toHaveLength(0);
    second.node.ws.close(1000, "done");
  });

  it("ticks on the hub's alarm, and a cancel reaches the node as node.invoke.cancel", async () => {
    const agent = uid("oc-tick");
    const { node } = await paired(agent);
    await hub(agent).dispatch(run("oc-cancel-1", { command: ["sleep", "30"] }));
    await node.next((f) => f.type === "event" && f.event === "node.invoke.request", "invoke");
    await hub(agent).cancel("oc-cancel-1");
    await node.next((f) => f.type === "event" && f.event === "node.invoke.cancel", "cancel");
    expect(node.cancels).toEqual(["oc-cancel-1"]);
    await runDurableObjectAlarm(hub(agent));
    const tick = await node.next((f) => f.type === "event" && f.event === "tick", "tick");
    expect(typeof (tick.payload as { ts: number }).ts).toBe("number");
    node.ws.close(1000, "done");
  });

  it("a node's published MCP tool is a tool, run through mcp.tools.call.v1; a v3 node is served v3", async () => {
    const agent = uid("oc-mcp");
    const { node } = await paired(agent, {
      commands: ["system.run", "mcp.tools.call.v1"],
      protocols: { min: 3, max: 3 },
      onInvoke: () => ({ ok: true, payload: { content: [{ type: "text", text: "found 3" }] } }),
    });
    expect(node.frames.find((f) => f.type === "res")).toMatchObject({ ok: true, payload: { protocol: 3 } });
    const tools = [
      { pluginId: "mcp", name: "docs_search", description: "Search docs", mcp: { server: "docs", tool: "search" } },
    ];
    await node.request("node.pluginTools.update", { tools });
    await waitFor(
      () => device(agent),
      (v) => v.skills.flatMap((sk) => sk.tools.map((t) => t.name)).includes("docs_search"),
    );
    await hub(agent).dispatch({ ...run("oc-mcp-1", { q: "edge" }), tool: "docs_search" });
    const invoke = await node.next((f) => f.type === "event" && f.event === "node.invoke.request", "invoke");
    expect(invoke.payload).toMatchObject({
      command: "mcp.tools.call.v1",
      paramsJSON: JSON.stringify({ server: "docs", tool: "search", arguments: { q: "edge" } }),
    });
    const row = await waitFor(
      () => ledgerRow(agent, "oc-mcp-1"),
      (r) => r.state === "done",
    );
    expect(JSON.parse(row.outcome!)).toMatchObject({ status: "success", tool: "docs_search", result: "found 3" });
    node.ws.close(1000, "done");
  });

  it("a node's published skills are its device's skills until it signs in again, and keep its tools", async () => {
    const agent = uid("oc-skills");
    const key = await makeNodeKey();
    const s = await setup(agent);
    const bootstrapToken = (
      JSON.parse(atob(s.setup_code.replace(/-/g, "+").replace(/_/g, "/"))) as {
        bootstrapToken: string;
      }
    ).bootstrapToken;
    const first = await dial(agent, { key, auth: { bootstrapToken }, commands: ["system.run", "mcp.tools.call.v1"] });
    expect((await first.node.connect()).ok).toBe(true);
    const content = "---\nname: garden\ndescription: Water it\n---\nRun `water 5`.";
    expect(
      await first.node.request("node.skills.update", {
        skills: [{ name: "garden", description: "Water it", content }],
      }),
    ).toMatchObject({ ok: true });
    const tools = [{ pluginId: "mcp", name: "docs_search", description: "Search", mcp: { server: "d", tool: "s" } }];
    await first.node.request("node.pluginTools.update", { tools });
    const view = await waitFor(
      () => device(agent),
      (v) => v.skills.some((sk) => sk.name === "garden") && v.skills.some((sk) => sk.tools.length === 2),
    );
    expect(view.skills.find((sk) => sk.name === "garden")).toMatchObject({ workflow: content, tools: [] });

    // Signed in again, it has published nothing yet: the old skills are gone until it does.
    first.node.ws.close(1000, "restart");
    const back = await dial(agent, { key, auth: { deviceToken: first.node.deviceToken() } });
    expect((await back.node.connect()).ok).toBe(true);
    const again = await waitFor(
      () => device(agent),
      (v) => v.online && !v.skills.some((sk) => sk.name === "garden"),
    );
    expect(again.skills.map((sk) => sk.name)).toEqual(["openclaw-node"]);
    // What it publishes now stands alone: the skills of its last sign-in do not come back with it.
    await back.node.request("node.pluginTools.update", { tools });
    const republished = await waitFor(
      () => device(agent),
      (v) => v.skills.some((sk) => sk.tools.length === 2),
    );
    expect(republished.skills.map((sk) => sk.name)).toEqual(["openclaw-node"]);
    back.node.ws.close(1000, "done");
  });

  it("a socket that does not sign in within 15 s is closed; revoking a node's token closes its socket", async () => {
    const agent = uid("oc-close");
    const silent = await dial(agent, { key: await makeNodeKey() });
    await silent.node.next((f) => f.type === "event" && f.event === "connect.challenge", "challenge");
    await hub(agent).runChecks(Date.now() + 16_000);
    expect(await silent.closed).toMatchObject({ code: 1008, reason: "connect timeout" });

    const { node, key, closed } = await paired(agent);
    const tokens = (await (await call(`/v1/devices/${agent}/tokens`, { headers: ADMIN })).json()) as {
      tokens: { token_id: string }[];
    };
    const revoked = await call(`/v1/devices/${agent}/tokens/${tokens.tokens[0]!.token_id}`, {
      method: "DELETE",
      headers: ADMIN,
    });
    expect(await revoked.json()).toMatchObject({ revoked: true, sockets_closed: 1 });
    expect((await closed).code).toBe(4001);
    // Its token no longer lets it in, nor its key (below).
    const back = await dial(agent, { key, auth: { deviceToken: node.deviceToken() } });
    expect(errorCode(await back.node.connect())).toBe("AUTH_UNAUTHORIZED");
  });
});
