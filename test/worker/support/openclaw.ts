/**
 * An OpenClaw node written from OpenClaw's protocol (test/helpers/openclaw-node.ts), through the
 * worker's /v1/openclaw route: dialled, set up with a minted setup code, paired.
 */
import { runInDurableObject } from "cloudflare:test";
import { expect } from "vitest";
import { makeNodeKey, type NodeOptions, openclawNode } from "../../helpers/openclaw-node.js";
import { ADMIN, call, deviceView as device, hub, uid, waitFor } from "./front-door.js";

export async function dial(agent: string, opts: NodeOptions) {
  const res = await call(`/v1/openclaw/${agent}`, { headers: { upgrade: "websocket" } });
  expect(res.status).toBe(101);
  const ws = res.webSocket!;
  ws.accept();
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    ws.addEventListener("close", (e) => resolve({ code: e.code, reason: e.reason })),
  );
  return { node: openclawNode(ws, opts), closed };
}

export const errorCode = (res: Record<string, unknown>) =>
  (res.error as { details?: { code?: string } } | undefined)?.details?.code;

/** The setup code as the bootstrap token it carries. */
export const bootstrapTokenOf = (setupCode: string) =>
  (JSON.parse(atob(setupCode.replace(/-/g, "+").replace(/_/g, "/"))) as { bootstrapToken: string }).bootstrapToken;

export async function setup(agent: string) {
  const res = await call(`/v1/openclaw/${agent}/setup`, {
    method: "POST",
    headers: { ...ADMIN, "content-type": "application/json" },
    body: "{}",
  });
  expect(res.status).toBe(201);
  return (await res.json()) as {
    setup_code: string;
    join_url: string;
    run: string;
    connect: string;
    gateway_url: string;
  };
}

/** A node paired through a setup code: online, with its tools. */
export async function paired(agent: string, opts: Omit<NodeOptions, "key"> = {}) {
  const key = await makeNodeKey();
  const s = await setup(agent);
  const { node, closed } = await dial(agent, {
    ...opts,
    key,
    auth: { bootstrapToken: bootstrapTokenOf(s.setup_code) },
  });
  const hello = await node.connect();
  expect(hello.ok).toBe(true);
  await waitFor(
    () => device(agent),
    (v) => v.online,
  );
  return { node, key, closed };
}

/** A command for a node's hub, `system_run` unless the test says otherwise. */
export const run = (request_id: string, parameters: Record<string, unknown>, timeout_ms = 30_000) => ({
  request_id,
  conversation_id: uid("conv-oc"),
  tool_call_id: `call-${request_id}`,
  tool: "system_run",
  parameters,
  timeout_ms,
});

export type LedgerRowText = { state: string; outcome: string | null };
export const ledgerRow = (agent: string, id: string) =>
  runInDurableObject(hub(agent), (_o, state) =>
    state.storage.sql.exec<LedgerRowText>("SELECT state, outcome FROM ledger WHERE request_id = ?", id).one(),
  );
