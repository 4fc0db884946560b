/**
 * Helpers for the front-door tests: the real worker app called with a deployment's vars laid over
 * the test bindings (the Durable Objects are the real ones), and real device WebSockets.
 */
import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { hubFor } from "../../../durable-objects/addresses.js";
import type { DeviceView } from "../../../durable-objects/device-hub/device-hub-rpc.js";
import worker from "../../../worker/index.js";
import { bashToolManifest } from "../../fixtures/bash-tool-manifest.js";

export type Frame = Record<string, unknown>;
export const BASE = "http://edgeloop.test";
export const ADMIN = { authorization: `Bearer ${env.ADMIN_TOKEN}` };
export const API = { authorization: `Bearer ${env.API_TOKEN}` };

/** The worker as a deployment with these vars would run it. */
export async function call(path: string, init: RequestInit = {}, vars: Record<string, string> = {}): Promise<Response> {
  const ctx = createExecutionContext();
  const res = await worker.fetch(new Request(`${BASE}${path}`, init), { ...env, ...vars }, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}

export function postMessage(
  body: unknown,
  headers: Record<string, string>,
  vars: Record<string, string> = {},
  query = "",
): Promise<Response> {
  return call(
    `/v1/messages${query}`,
    {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: typeof body === "string" ? body : JSON.stringify(body),
    },
    vars,
  );
}

export const hub = (agentId: string) => hubFor(env, agentId);

/** The hub's view of its device. */
export async function deviceView(agentId: string): Promise<DeviceView> {
  return hub(agentId).getDevice(agentId);
}

export async function waitFor<T>(fn: () => Promise<T>, ok: (v: T) => boolean, ms = 5000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (ok(v)) return v;
    if (Date.now() > deadline) throw new Error(`condition not met: ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export const bashTool = bashToolManifest;

export const toolNamed = (name: string) => ({ ...bashTool, name, binary: `bin/${name}` });

export type Device = Awaited<ReturnType<typeof connectDevice>>;

/** A device: a real WebSocket through the worker's connect route, collecting what the hub sends. */
export async function connectDevice(agentId: string, token: string, vars: Record<string, string> = {}) {
  const res = await call(
    `/v1/devices/${agentId}/connect`,
    { headers: { upgrade: "websocket", authorization: `Bearer ${token}` } },
    vars,
  );
  if (res.status !== 101) throw new Error(`connect ${agentId}: ${res.status} ${await res.text()}`);
  const ws = res.webSocket!;
  ws.accept();
  const received: Frame[] = [];
  const raw: string[] = [];
  let closeEvent: { code: number; reason: string } | null = null;
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    ws.addEventListener("close", (e) => {
      closeEvent = { code: e.code, reason: e.reason };
      resolve(closeEvent);
    }),
  );
  ws.addEventListener("message", (e) => {
    const text = typeof e.data === "string" ? e.data : "";
    raw.push(text);
    try {
      received.push(JSON.parse(text) as Frame);
    } catch {
      /* not JSON */
    }
  });
  const next = async (pred: (f: Frame) => boolean, ms = 5000): Promise<Frame> => {
    const deadline = Date.now() + ms;
    for (;;) {
      const hit = received.find(pred);
      if (hit) return hit;
      if (Date.now() > deadline) throw new Error(`no matching frame; got ${JSON.stringify(received)}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  const hello = (tools: object[] = [bashTool], held: string[] = []) =>
    ws.send(
      JSON.stringify({
        type: "hello",
        protocol: 1,
        agent_id: agentId,
        version: "9.9.9",
        capabilities: ["shell"],
        held,
        skills: [{ name: "test-tools", version: "1.0.0", tools }],
      }),
    );
  const online = () =>
    waitFor(
      () => deviceView(agentId),
      (v) => v.online,
    );
  return { ws, received, raw, next, hello, online, closed, closeEvent: () => closeEvent };
}

/** A fresh id per test run, so tests sharing the runtime's storage never see each other's state. */
export const uid = (prefix: string) => `${prefix}-${crypto.randomUUID().slice(0, 8)}`;

/** A fresh device id with an issued token that has never connected (paired, not started). */
export async function pairedAgent(prefix: string): Promise<string> {
  const agentId = uid(prefix);
  await hub(agentId).issueToken(agentId);
  return agentId;
}

/**
 * A fresh device id that the front door knows (an issued token, as `POST /v1/devices/:id/tokens`
 * gives) and that has connected once, with no tools, then gone: messages to a device with no token
 * that never connected are refused, and so are those to a device with a token that never connected
 * (its tools are unknown: "paired but has never connected").
 */
export async function knownAgent(prefix: string): Promise<string> {
  const agentId = uid(prefix);
  const { token } = await hub(agentId).issueToken(agentId);
  const device = await connectDevice(agentId, token);
  device.hello([]);
  await device.online();
  device.ws.close(1000, "known");
  await waitFor(
    () => deviceView(agentId),
    (v) => !v.online,
  );
  return agentId;
}
