import { performance } from "node:perf_hooks";
import WebSocket from "ws";

/** One simulated device on the durable floor: answers every command frame with a result at once. */
async function floorDevice(wsUrl: string, name: string): Promise<{ received: Map<string, number>; ws: WebSocket }> {
  // Like the agent: no permessage-deflate.
  const ws = new WebSocket(`${wsUrl}?name=${encodeURIComponent(name)}`, { perMessageDeflate: false });
  const received = new Map<string, number>();
  ws.on("message", (data) => {
    const frame = JSON.parse(data.toString()) as { type: string; request_id?: string; payload?: { tool: string } };
    if (frame.type !== "command" || !frame.request_id) return;
    received.set(frame.request_id, (received.get(frame.request_id) ?? 0) + 1);
    ws.send(
      JSON.stringify({
        type: "result",
        request_id: frame.request_id,
        status: "success",
        tool: frame.payload?.tool,
        result: "ok\n",
        stderr: "",
        exit_code: 0,
        elapsed_ms: 0,
      }),
    );
  });
  await new Promise<void>((resolve, reject) => {
    ws.once("open", () => resolve());
    ws.once("error", reject);
  });
  return { received, ws };
}

export type DurableFloorRun = {
  perSecond: number;
  /** tool calls completed */
  calls: number;
  ms: number;
  /** commands the devices received more than once */
  duplicated: number;
};

/**
 * The durable floor (bench/floor-worker: FloorConversationDO, FloorHubDO) at the fleet's
 * concurrency: `devices` device sockets, each to its own hub, and `conversations` messages at once,
 * message i to device i % devices, each a conversation of its own making `rounds` tool rounds and
 * a final model request (the same model requests as the product's messages, with `body`). Tool
 * calls per second over the whole batch.
 */
export async function durableFloorThroughput(
  baseUrl: string,
  devices: number,
  conversations: number,
  rounds: number,
  modelUrl: string,
  body: string,
  tag: string,
): Promise<DurableFloorRun> {
  const wsUrl = `${baseUrl.replace(/^http/, "ws")}/device`;
  const fleet = await Promise.all(Array.from({ length: devices }, (_, i) => floorDevice(wsUrl, `floor-device-${i}`)));
  try {
    const started = performance.now();
    const calls = await Promise.all(
      Array.from({ length: conversations }, async (_, i) => {
        const res = await fetch(`${baseUrl}/message`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({
            conversation: `floor-${tag}-${i}`,
            device: `floor-device-${i % devices}`,
            rounds,
            url: modelUrl,
            body,
          }),
        });
        if (!res.ok) throw new Error(`durable floor: POST /message answered ${res.status}: ${await res.text()}`);
        return ((await res.json()) as { calls: number }).calls;
      }),
    );
    const ms = performance.now() - started;
    const total = calls.reduce((a, b) => a + b, 0);
    const duplicated = fleet.reduce((n, d) => n + [...d.received.values()].reduce((m, c) => m + c - 1, 0), 0);
    return { perSecond: (total / ms) * 1000, calls: total, ms, duplicated };
  } finally {
    for (const d of fleet) d.ws.close();
  }
}
