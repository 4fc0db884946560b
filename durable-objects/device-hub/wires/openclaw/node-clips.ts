import type { ContentBlock, ToolOutcome } from "@edgeloop/protocol";
import type { NodeInvoke } from "./node-tools.js";

/**
 * A node's video clips (`camera.clip`, `screen.record`; docs/openclaw-nodes.md#clips), pure. The
 * node answers `{format: "mp4", base64, durationMs, hasAudio}` (screen.record adds fps and
 * screenIndex) and nothing else: no thumbnail. A Worker cannot decode video, so the hub stores the
 * clip and asks the node, right after, for a still with the matching command (`camera.snap` with
 * the same camera, `screen.snapshot` of the same screen); the model gets the link and that still,
 * called what it is: taken after the clip, not a frame of it.
 */

export const CLIP_COMMANDS: ReadonlySet<string> = new Set(["camera.clip", "screen.record"]);

/** The poster's invoke id: the call's request id with this after it (no ledger row has one). */
export const POSTER_SUFFIX = ":poster";
/** How long the node may take for the poster; the call's own deadline still bounds it. */
export const POSTER_TIMEOUT_MS = 15_000;

export type ClipPayload = {
  media_type: string;
  base64: string;
  durationMs?: number;
  hasAudio?: boolean;
};

const MEDIA_TYPES: Record<string, string> = { mp4: "video/mp4", mov: "video/quicktime", webm: "video/webm" };

/** The node's payload as a clip, or why it is not one (a URL on the node, which edgeloop cannot fetch, say). */
export function readClip(payload: unknown): ClipPayload | string {
  const p = (payload && typeof payload === "object" ? payload : {}) as Record<string, unknown>;
  const format = String(p.format ?? "").toLowerCase();
  const media_type = MEDIA_TYPES[format];
  if (!media_type) return `the node returned a clip in a format edgeloop does not know (${format || "none"})`;
  if (typeof p.base64 !== "string" || !p.base64)
    return "the node returned no clip bytes (a link on the node itself, which edgeloop cannot fetch)";
  return {
    media_type,
    base64: p.base64,
    ...(typeof p.durationMs === "number" ? { durationMs: p.durationMs } : {}),
    ...(typeof p.hasAudio === "boolean" ? { hasAudio: p.hasAudio } : {}),
  };
}

/** The still to take after a clip, when the node advertises the command for it; else null. */
export function posterInvoke(
  command: string,
  sent: Record<string, unknown>,
  advertised: readonly string[],
): NodeInvoke | null {
  if (command === "camera.clip" && advertised.includes("camera.snap"))
    return {
      command: "camera.snap",
      // As OpenClaw's gateway asks for a snap (nodes-tool-media.ts), from the camera that recorded.
      params: {
        ...(typeof sent.facing === "string" ? { facing: sent.facing } : {}),
        maxWidth: 1600,
        quality: 0.95,
        format: "jpg",
        ...(typeof sent.deviceId === "string" ? { deviceId: sent.deviceId } : {}),
      },
    };
  if (command === "screen.record" && advertised.includes("screen.snapshot"))
    return {
      command: "screen.snapshot",
      params: { screenIndex: typeof sent.screenIndex === "number" ? sent.screenIndex : 0 },
    };
  return null;
}

/** What the call's outcome says of the clip, kept while the poster is taken. */
export type ClipMeta = { tool: string; command: string; link: string; media_type: string; bytes: number } & Pick<
  ClipPayload,
  "durationMs" | "hasAudio"
>;

function describe(m: ClipMeta): string {
  const facts = [m.media_type, `${m.bytes} bytes`];
  if (m.durationMs !== undefined) facts.push(`${(m.durationMs / 1000).toFixed(1)} s`);
  if (m.hasAudio !== undefined) facts.push(m.hasAudio ? "with sound" : "no sound");
  return (
    `The clip is stored at ${m.link} (${facts.join(", ")}); it is fetched with the deployment's API key. ` +
    "edgeloop cannot show you video, only this link."
  );
}

/**
 * The call's outcome: the link, then the poster (blocks from the snapshot's picture) or why there
 * is none.
 */
export function clipOutcome(m: ClipMeta, poster: ContentBlock[] | string, elapsedMs: number): ToolOutcome {
  const still = m.command === "camera.clip" ? "a photo taken with the same camera" : "a screenshot of the same screen";
  const posterText =
    typeof poster === "string"
      ? `No poster: ${poster}.`
      : `Poster: ${still} right after the clip ended (camera.snap / screen.snapshot), not a frame of the clip.`;
  const text = `${describe(m)}\n${posterText}`;
  const content: ContentBlock[] = [{ type: "text", text }, ...(typeof poster === "string" ? [] : poster)];
  return {
    status: "success",
    tool: m.tool,
    result: text,
    stderr: "",
    exit_code: 0,
    elapsed_ms: elapsedMs,
    ...(typeof poster === "string" ? {} : { content }),
  };
}
