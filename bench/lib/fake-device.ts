import { type HelloFrame, HubFrame, PROTOCOL_VERSION, parseJson, type ResultFrame } from "@edgeloop/protocol";
import WebSocket from "ws";
import { ADMIN_TOKEN } from "../../test/helpers/local-worker.js";
import { waitUntil } from "../../test/helpers/wait.js";

/**
 * A simulated device speaking the real v1 frames: `hello` with one instant tool, and a `result`
 * for every command the moment it arrives. It counts commands per request id, so lost and
 * duplicated deliveries can be told apart. Many run in one process (fleet scenario).
 */
export class FakeDevice {
  /** commands received per request id */
  readonly received = new Map<string, number>();
  private constructor(private readonly ws: WebSocket) {}

  /** `extraTools`: more instant tools to advertise beside `bench_ok` (answered the same way). */
  static async connect(
    workerUrl: string,
    agentId: string,
    token: string,
    extraTools: string[] = [],
  ): Promise<FakeDevice> {
    // Like the agent: no permessage-deflate.
    const ws = new WebSocket(`${workerUrl.replace(/^http/, "ws")}/v1/devices/${agentId}/connect`, {
      headers: { authorization: `Bearer ${token}` },
      perMessageDeflate: false,
    });
    const device = new FakeDevice(ws);
    ws.on("message", (data) => device.onFrame(data.toString()));
    await new Promise<void>((resolve, reject) => {
      ws.once("open", () => resolve());
      ws.once("error", reject);
    });
    ws.send(JSON.stringify(hello(agentId, extraTools)));
    await waitUntil(
      () =>
        fetch(`${workerUrl}/v1/devices/${agentId}`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } }).then(
          (r) => r.json() as Promise<{ online: boolean; skills?: unknown[] }>,
        ),
      (v) => v.online === true && (v.skills?.length ?? 0) > 0,
      { timeoutMs: 30_000, what: `fake device ${agentId} online` },
    );
    return device;
  }

  private onFrame(text: string): void {
    const parsed = parseJson(HubFrame, text);
    if (!parsed.ok) return;
    const frame = parsed.value;
    if (frame.type !== "command" || frame.command !== "tool") return;
    this.received.set(frame.request_id, (this.received.get(frame.request_id) ?? 0) + 1);
    const result: ResultFrame = {
      type: "result",
      request_id: frame.request_id,
      status: "success",
      tool: frame.payload.tool,
      result: "ok\n",
      stderr: "",
      exit_code: 0,
      elapsed_ms: 0,
    };
    this.ws.send(JSON.stringify(result));
  }

  close(): void {
    this.ws.close(1000);
  }
}

function hello(agentId: string, extraTools: string[]): HelloFrame {
  return {
    type: "hello",
    protocol: PROTOCOL_VERSION,
    agent_id: agentId,
    version: "bench-fake-device",
    capabilities: [],
    held: [],
    filtered: [],
    skills: [
      {
        name: "bench-fake",
        version: "1.0.0",
        tools: ["bench_ok", ...extraTools].map((name) => ({
          name,
          description: "Answer ok at once.",
          binary: "bin/bench-ok",
          category: "other",
          timeout_ms: 10_000,
          max_timeout_ms: 60_000,
          permissions: [],
          sandboxing: "none",
          requires: [],
          parameters: { type: "object", properties: {}, required: [] },
        })),
      },
    ],
  };
}
