import type { DeviceFrame, Parsed, SkillManifest, ToolOutcome } from "@edgeloop/protocol";
import type { ClipStore } from "../../storage/clip-store.js";
import { event, NodeInvokeResultParams, type RequestFrame, responseOk } from "./gateway-frames.js";
import {
  CLIP_COMMANDS,
  type ClipMeta,
  clipOutcome,
  POSTER_SUFFIX,
  POSTER_TIMEOUT_MS,
  posterInvoke,
  readClip,
} from "./node-clips.js";
import { payloadOf, pictureBlocks } from "./node-tools.js";

/**
 * The hub's side of a node's clip (docs/openclaw-nodes.md#clips): the clip's result is stored and
 * held back while the hub asks the node for the poster (node-clips.ts), and the poster's result
 * ends the call with the link and the still. Every other result is the wire's usual path.
 */

type Row = {
  tool: string;
  state: string;
  created_at: number;
  deadline: number;
  frame: { payload: { parameters: Record<string, unknown> } };
};

type Deps = {
  ledger: { get(requestId: string): Row | null };
  clips: ClipStore;
  /** a node's tools as the hub knows them */
  skills: (agentId: string) => SkillManifest[];
  /** the commands the node advertised */
  commands: () => string[];
};

export type ClipAnswer = { response: object; frame: Parsed<DeviceFrame> | null; send?: object };

/** Where the clip is served (worker/routes/devices.ts), on the origin the node connected to. */
export const clipLink = (origin: string, agentId: string, sha256: string) =>
  `${origin}/v1/devices/${encodeURIComponent(agentId)}/clips/${sha256}`;

const result = (requestId: string, outcome: ToolOutcome): Parsed<DeviceFrame> => ({
  ok: true,
  value: { type: "result", request_id: requestId, ...outcome } as DeviceFrame,
});

export class ClipFlow {
  constructor(private readonly d: Deps) {}

  /** A `node.invoke.result` this flow handles (a clip's or its poster's), or null for the usual path. */
  take(req: RequestFrame, node: { agentId: string; nodeId: string; origin: string }, now: number): ClipAnswer | null {
    if (req.method !== "node.invoke.result") return null;
    const parsed = NodeInvokeResultParams.safeParse(req.params);
    if (!parsed.success) return null;
    const r = parsed.data;
    const ok = responseOk(req.id, { ok: true });
    if (r.id.endsWith(POSTER_SUFFIX)) {
      const requestId = r.id.slice(0, -POSTER_SUFFIX.length);
      const pending = this.d.clips.takePoster(requestId);
      // A poster for a call that already ended (its deadline, a reconnect): nothing waits for it.
      if (!pending) return { response: ok, frame: null };
      const payload = payloadOf(r);
      const blocks =
        r.ok && payload && typeof payload === "object" ? pictureBlocks(payload as Record<string, unknown>) : null;
      const poster =
        blocks ??
        (r.ok
          ? "the node's still had no image bytes"
          : `the node could not take the still (${[r.error?.code, r.error?.message].filter(Boolean).join(": ")})`);
      const row = this.d.ledger.get(requestId);
      const meta = JSON.parse(pending.meta) as ClipMeta;
      return { response: ok, frame: result(requestId, clipOutcome(meta, poster, row ? now - row.created_at : 0)) };
    }
    const row = this.d.ledger.get(r.id);
    const command = this.commandOf(row?.tool, node.agentId);
    if (!row || !command || !CLIP_COMMANDS.has(command) || !r.ok) return null;
    const clip = readClip(payloadOf(r));
    if (typeof clip === "string")
      return {
        response: ok,
        frame: result(r.id, { status: "error", tool: row.tool, error: clip, error_type: "execution_failed" }),
      };
    const stored = this.d.clips.putBase64(clip.base64, clip.media_type, now);
    const meta: ClipMeta = {
      tool: row.tool,
      command,
      link: clipLink(node.origin, node.agentId, stored.sha256),
      media_type: clip.media_type,
      bytes: stored.bytes,
      ...(clip.durationMs !== undefined ? { durationMs: clip.durationMs } : {}),
      ...(clip.hasAudio !== undefined ? { hasAudio: clip.hasAudio } : {}),
    };
    const poster = posterInvoke(command, row.frame.payload.parameters, this.d.commands());
    // The poster must come back before the call's own deadline, or the call ends without the link.
    const timeoutMs = Math.min(POSTER_TIMEOUT_MS, row.deadline - now - 1_000);
    // A call that already ended (cancelled, its deadline) takes no new picture.
    const ended = row.state === "done";
    if (!poster || ended || timeoutMs < 1_000) {
      const why = !poster
        ? `the node does not advertise ${command === "camera.clip" ? "camera.snap" : "screen.snapshot"}`
        : ended
          ? "the call had already ended when the clip came"
          : "no time was left before the call's deadline to take a still";
      return { response: ok, frame: result(r.id, clipOutcome(meta, why, now - row.created_at)) };
    }
    this.d.clips.awaitPoster({ request_id: r.id, sha256: stored.sha256, meta: JSON.stringify(meta), at: now });
    const id = `${r.id}${POSTER_SUFFIX}`;
    const send = event("node.invoke.request", {
      id,
      nodeId: node.nodeId,
      command: poster.command,
      paramsJSON: JSON.stringify(poster.params),
      timeoutMs,
      idempotencyKey: id,
    });
    return { response: ok, frame: null, send };
  }

  /** The outcome of a call whose clip is stored but whose poster never came (`why`), or null if none waits. */
  withoutPoster(requestId: string, why: string, now: number): ToolOutcome | null {
    const pending = this.d.clips.takePoster(requestId);
    if (!pending) return null;
    return clipOutcome(JSON.parse(pending.meta) as ClipMeta, why, now - pending.at);
  }

  private commandOf(tool: string | undefined, agentId: string): string | undefined {
    if (!tool) return undefined;
    const manifest = this.d
      .skills(agentId)
      .flatMap((s) => s.tools)
      .find((t) => t.name === tool);
    return manifest?.binary.split("#")[0];
  }
}
