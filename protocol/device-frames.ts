import { z } from "zod";
import { ContentBlock, type OutcomeBlock } from "./content-blocks.js";
import { ElicitationAnswerFrame, ElicitationFrame } from "./elicitation-frames.js";
import { ErrorType } from "./error-types.js";
import { Identifier, ToolName } from "./ids.js";
import { type Parsed, parseJsonPreferring } from "./parse.js";
import { FilteredTool, SkillManifest } from "./skill-manifest.js";
import { Traceparent } from "./trace-context.js";

export const PROTOCOL_VERSION = 1;

/** Heartbeat strings: the hub answers PING with PONG through the WebSocket auto-response. */
export const PING_FRAME = '{"type":"ping"}';
export const PONG_FRAME = '{"type":"pong"}';

/**
 * The close code a device's socket ends with when whoever holds it (the MQTT bridge) found the
 * device unreachable behind it; the close reason says why and what to do. The hub shows the device
 * offline with that reason, and a call that waited for it ends `not_sent` with it.
 */
export const UNREACHABLE_CLOSE_CODE = 4020;

// ---- hub → device ---------------------------------------------------------------------

/**
 * What the model is shown of an image (docs/images.md): a tool that makes pictures fits them to
 * this itself (the bundled `image` tool reads it as EDGELOOP_IMAGE_MAX_*), so none is left out.
 */
export const ImageFit = z.object({
  max_width: z.number().int().positive(),
  max_height: z.number().int().positive(),
  max_bytes: z.number().int().positive(),
});
export type ImageFit = z.infer<typeof ImageFit>;

/** EvoClaw's tool command (as sent over MQTT), with `type` added. */
export const ToolCommandFrame = z.object({
  type: z.literal("command"),
  command: z.literal("tool"),
  request_id: Identifier,
  payload: z.object({
    tool: ToolName,
    parameters: z.record(z.string(), z.unknown()),
    timeout_ms: z.number().int().positive(),
    request_id: Identifier,
    /** the call's trace (W3C); an EvoClaw agent ignores it (docs/tracing.md) */
    traceparent: Traceparent.optional().catch(undefined),
    /** the image limits of the model the result goes to; an EvoClaw agent ignores them */
    image_limits: ImageFit.optional().catch(undefined),
  }),
});
export type ToolCommandFrame = z.infer<typeof ToolCommandFrame>;

export const CancelCommandFrame = z.object({
  type: z.literal("command"),
  command: z.literal("cancel"),
  request_id: Identifier,
});
export type CancelCommandFrame = z.infer<typeof CancelCommandFrame>;

/** The hub has accepted these results; the agent may forget them (it still dedupes by TTL). */
export const AckFrame = z.object({ type: z.literal("ack"), request_ids: z.array(Identifier) });
export type AckFrame = z.infer<typeof AckFrame>;

/** The hub refused a frame; sent before the socket is closed for repeated bad frames. */
export const RejectedFrame = z.object({
  type: z.literal("rejected"),
  reason: z.string(),
  request_id: z.string().optional(),
});
export type RejectedFrame = z.infer<typeof RejectedFrame>;

// Discriminated on `type`, then on `command`, so an error names the field that failed.
export const HubFrame = z.discriminatedUnion("type", [
  z.discriminatedUnion("command", [ToolCommandFrame, CancelCommandFrame]),
  AckFrame,
  RejectedFrame,
  ElicitationAnswerFrame,
]);
export type HubFrame = z.infer<typeof HubFrame>;

/** A hub frame from its text; a tool command (the usual frame) is parsed by its own schema. */
export function parseHubFrame(text: string): Parsed<HubFrame> {
  return parseJsonPreferring(HubFrame, ToolCommandFrame, text);
}

// ---- device → hub ---------------------------------------------------------------------

export const HelloFrame = z.object({
  type: z.literal("hello"),
  protocol: z.literal(PROTOCOL_VERSION),
  agent_id: Identifier,
  version: z.string().max(64),
  capabilities: z.array(z.string()).default([]),
  skills: z.array(SkillManifest).default([]),
  /** request ids the agent has a result for, or is still running */
  held: z.array(Identifier).default([]),
  /** tools found on disk but not advertised, with the reason */
  filtered: z.array(FilteredTool).default([]),
});
export type HelloFrame = z.infer<typeof HelloFrame>;

/** Reported when stdout was cut at the agent's output cap. */
const Truncation = {
  truncated: z.boolean().optional(),
  bytes_total: z.number().int().nonnegative().optional(),
  bytes_returned: z.number().int().nonnegative().optional(),
};

/** EvoClaw's success report, with `type` and `request_id` added. */
export const SuccessResultFrame = z.object({
  type: z.literal("result"),
  request_id: Identifier,
  status: z.literal("success"),
  tool: ToolName,
  result: z.string(),
  stderr: z.string().default(""),
  exit_code: z.number().int().default(0),
  elapsed_ms: z.number().nonnegative().default(0),
  content: z.array(ContentBlock).optional(),
  ...Truncation,
});
export type SuccessResultFrame = z.infer<typeof SuccessResultFrame>;

/** EvoClaw's error report, with `type` and `request_id` added. */
export const ErrorResultFrame = z.object({
  type: z.literal("result"),
  request_id: Identifier,
  status: z.literal("error"),
  tool: ToolName,
  error: z.string(),
  error_type: ErrorType,
  elapsed_ms: z.number().nonnegative().optional(),
  stderr: z.string().optional(),
  exit_code: z.number().int().optional(),
  ...Truncation,
});
export type ErrorResultFrame = z.infer<typeof ErrorResultFrame>;

export const ResultFrame = z.discriminatedUnion("status", [SuccessResultFrame, ErrorResultFrame]);
export type ResultFrame = z.infer<typeof ResultFrame>;

/**
 * The device has taken the command (the agent, when it starts it; the MQTT bridge, when the broker
 * acknowledged the publish). Optional: a peer that never sends it (EvoClaw's agent behind a
 * bridge that predates it) only makes the hub less sure, never wrong (docs/protocol.md#accepted).
 */
export const AcceptedFrame = z.object({
  type: z.literal("accepted"),
  request_id: Identifier,
  /** who took it: "agent" or "broker" */
  by: z.enum(["agent", "broker"]).default("agent"),
});
export type AcceptedFrame = z.infer<typeof AcceptedFrame>;

export const ProgressFrame = z.object({
  type: z.literal("progress"),
  request_id: Identifier,
  content: z.array(ContentBlock).min(1),
});
export type ProgressFrame = z.infer<typeof ProgressFrame>;

/**
 * The device's manifest changed while it stays connected (an MCP server's tools/list_changed, a
 * restarted server with other tools): replaces what `hello` advertised, nothing else.
 */
export const ManifestUpdateFrame = z.object({
  type: z.literal("manifest_update"),
  capabilities: z.array(z.string()).default([]),
  skills: z.array(SkillManifest).default([]),
  filtered: z.array(FilteredTool).default([]),
});
export type ManifestUpdateFrame = z.infer<typeof ManifestUpdateFrame>;

// Discriminated on `type` (then `status`), so an error names the field that failed.
export const DeviceFrame = z.discriminatedUnion("type", [
  HelloFrame,
  ResultFrame,
  ProgressFrame,
  ManifestUpdateFrame,
  AcceptedFrame,
  ElicitationFrame,
]);
export type DeviceFrame = z.infer<typeof DeviceFrame>;

/** A device frame from its text; a result (the usual frame) is parsed by its own schema. */
export function parseDeviceFrame(text: string): Parsed<DeviceFrame> {
  return parseJsonPreferring(DeviceFrame, ResultFrame, text);
}

/** Tool outcome as the conversation sees it: a result frame without the transport fields. */
export type ToolOutcome =
  | (Omit<SuccessResultFrame, "type" | "request_id" | "content"> & {
      /** inside the conversation, images are stored and referenced (ImageRef) */
      content?: OutcomeBlock[] | undefined;
    })
  | Omit<ErrorResultFrame, "type" | "request_id">;
