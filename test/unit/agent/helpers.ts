import { readFileSync } from "node:fs";
import type { IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type WebSocket, WebSocketServer } from "ws";
import { type ExecutorOptions, ToolExecutor } from "../../../device-agent/src/executor/executor.js";
import { probeBwrap } from "../../../device-agent/src/sandbox/bubblewrap.js";
import { DEFAULT_DENY_RULES } from "../../../device-agent/src/sandbox/deny-list.js";
import { type LoadedSkills, loadSkills } from "../../../device-agent/src/skills/load-skills.js";
import { tempDir as runTempDir } from "../../helpers/temp-dir.js";

export const REPO = fileURLToPath(new URL("../../../", import.meta.url));
export const FIXTURES = join(REPO, "test/fixtures/agent-skills");
export const BASIC = join(FIXTURES, "basic");
export const OTHER = join(FIXTURES, "other");
export const BROKEN = join(FIXTURES, "broken");
export const AGENT_BIN = join(REPO, "device-agent/bin/edgeloop-agent.js");

/** A directory under the run's temp dir (test/helpers/temp-dir.ts), removed when the run ends. */
export function tempDir(prefix = "edgeloop-agent-test-"): string {
  return runTempDir(prefix);
}

export function loadBasic(capabilities: string[] | null = null): LoadedSkills {
  return loadSkills([BASIC], {
    capabilities,
    sandboxing: "auto",
    bwrapUsable: probeBwrap().usable,
    toolTimeoutCeilingMs: null,
  });
}

export function makeExecutor(workspace: string, over: Partial<ExecutorOptions> = {}): ToolExecutor {
  const loaded = loadBasic();
  return new ToolExecutor({
    tools: loaded.tools,
    workspace,
    outputCapBytes: 1024 * 1024,
    killGraceMs: 300,
    sandboxing: "auto",
    bwrap: probeBwrap(),
    denyRules: DEFAULT_DENY_RULES,
    toolEnv: {},
    hiddenPaths: [],
    ...over,
  });
}

/** Poll until `check` returns a value (not undefined/false); generous default for loaded CI machines. */
export async function waitFor<T>(
  check: () => T | undefined | false | null,
  what: string,
  timeoutMs = 15_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value !== undefined && value !== false && value !== null) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Dead means gone or a zombie (a container's PID 1 may never reap it). */
export function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
    return state !== "Z" && state !== "X";
  } catch {
    return false;
  }
}

export function readLines(file: string): string[] {
  try {
    return readFileSync(file, "utf8")
      .split("\n")
      .filter((l) => l.length > 0);
  } catch {
    return [];
  }
}

export type HubConn = { socket: WebSocket; request: IncomingMessage; frames: any[]; raw: string[] };

/** A real `ws` server playing the hub: records every connection and every frame it receives. */
export class FakeHub {
  readonly conns: HubConn[] = [];
  private constructor(
    readonly server: WebSocketServer,
    readonly url: string,
  ) {}

  /** `respondToPing`: answer PING_FRAME with PONG_FRAME, as the hub's auto-response does. */
  static async start(
    opts: { respondToPing?: boolean; verify?: (req: IncomingMessage) => number | null } = {},
  ): Promise<FakeHub> {
    const server = new WebSocketServer({
      port: 0,
      host: "127.0.0.1",
      verifyClient: opts.verify
        ? (info, cb) => {
            const status = opts.verify!(info.req);
            if (status === null) cb(true);
            else cb(false, status);
          }
        : undefined,
    });
    await new Promise<void>((r) => server.once("listening", () => r()));
    const port = (server.address() as AddressInfo).port;
    const hub = new FakeHub(server, `http://127.0.0.1:${port}`);
    server.on("connection", (socket, request) => {
      const conn: HubConn = { socket, request, frames: [], raw: [] };
      hub.conns.push(conn);
      socket.on("message", (data) => {
        const text = data.toString();
        conn.raw.push(text);
        if (text === '{"type":"ping"}') {
          if (opts.respondToPing !== false) socket.send('{"type":"pong"}');
          return;
        }
        conn.frames.push(JSON.parse(text));
      });
    });
    return hub;
  }

  get last(): HubConn | undefined {
    return this.conns[this.conns.length - 1];
  }

  allFrames(): any[] {
    return this.conns.flatMap((c) => c.frames);
  }

  results(requestId?: string): any[] {
    return this.allFrames().filter(
      (f) => f.type === "result" && (requestId === undefined || f.request_id === requestId),
    );
  }

  async connection(n: number): Promise<HubConn> {
    return waitFor(() => (this.conns.length >= n ? this.conns[n - 1] : undefined), `hub connection #${n}`);
  }

  send(frame: unknown, conn = this.last): void {
    conn!.socket.send(typeof frame === "string" ? frame : JSON.stringify(frame));
  }

  async close(): Promise<void> {
    for (const c of this.conns) c.socket.terminate();
    await new Promise<void>((r) => this.server.close(() => r()));
  }
}

export function toolCommand(requestId: string, tool: string, parameters: Record<string, unknown>, timeout_ms = 30_000) {
  return {
    type: "command",
    command: "tool",
    request_id: requestId,
    payload: { tool, parameters, timeout_ms, request_id: requestId },
  };
}
