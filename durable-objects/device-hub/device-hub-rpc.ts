import type { ElicitationReply, ImageFit, SkillManifest } from "@edgeloop/protocol";
import type { DeviceReport } from "../registry/registry-rpc.js";
import type { AuditEntry, AuditQuery, DenialRecord, ToolStats } from "./storage/audit-log.js";
import type { StoredClip } from "./storage/clip-store.js";
import type { DeviceRecord } from "./storage/device-record.js";
import type { IssuedToken, TokenInfo } from "./storage/device-tokens.js";
import type { DeviceLoad } from "./views/device-load.js";
import type { NodeSetupSecret, RevokedKey } from "./wires/openclaw/node-credentials.js";

/**
 * What others may ask of a device's hub: conversations (dispatch, cancel, the device's skills),
 * the worker's device, audit, metrics and OpenClaw onboarding routes, and built-ins that list
 * devices. DeviceHubDO implements it, and the DEVICE_HUB namespace is typed by it. (A device's
 * socket is the one thing that comes by `fetch`: an upgrade, with the wire it speaks named.)
 */
export interface DeviceHubRpc {
  /** Idempotent: a command re-dispatched after a restart keeps its request id and is not re-sent. */
  dispatch(cmd: DispatchCommand): Promise<DispatchAnswer>;
  /** One model response's parallel calls in one event: one commit for all of them. */
  dispatchBatch(cmds: DispatchCommand[]): Promise<DispatchAnswer[]>;
  cancel(requestId: string): Promise<void>;
  /**
   * A person's answer to the device MCP server's question `elicitationId` during call `requestId`,
   * sent to the device (docs/protocol.md#elicitation): `sent`; `offline` (no socket now: the
   * question stays open, and the agent asks again when it is back); `ended` (the call is over).
   */
  answerElicitation(requestId: string, elicitationId: string, reply: ElicitationReply): Promise<ElicitationDelivery>;
  getDevice(agentId: string): Promise<DeviceView>;
  /** Online, calls in flight, last alive: what fleet routing needs, without getDevice's whole-ledger count. */
  getLoad(agentId: string): Promise<DeviceLoad>;
  getSkills(agentId: string): Promise<SkillManifest[]>;
  /**
   * What a new message for this one device needs of its hub, in one call: whether it was given a
   * token but never connected (the message is refused), else its skills (read as getSkills does).
   */
  getIntake(agentId: string): Promise<DeviceIntake>;
  /** A clip an OpenClaw node recorded (storage/clip-store.ts), or null when there is none by that hash. */
  getClip(sha256: string): Promise<StoredClip | null>;
  /** Whether this device was ever connected or has an issued token; reads only, so unknown ids leave nothing. */
  isKnown(): Promise<boolean>;
  /** A pool's registry asks to be told of the device's changes from now on; answers how it is now. */
  followPool(agentId: string, pool: string): Promise<DeviceReport>;
  issueToken(agentId: string): Promise<IssuedToken>;
  listTokens(): Promise<TokenInfo[]>;
  /** Revoke a token and close, at once, any socket that authenticated with it (4001). */
  revokeToken(tokenId: string): Promise<{ found: boolean; closed: number }>;
  /** Clear the device keys revoked on this agent id: each may ask to pair again (docs/openclaw-nodes.md#revoke). */
  clearRevoked(agentId: string): Promise<RevokedKey[]>;
  queryAudit(q: AuditQuery): Promise<AuditEntry[]>;
  /** A call an approval decision blocked before it reached the device: an audit row, once per request id. */
  recordDenial(d: DenialRecord): Promise<void>;
  toolMetrics(since: number): Promise<ToolStats[]>;
  /**
   * A one-use setup secret for a new OpenClaw node, live for `ttlMs` (the admin route checked it
   * against NodeSetupRequest): the setup code's bootstrap token and the join URL's code
   * (docs/openclaw-nodes.md#set-up).
   */
  mintNodeSetup(ttlMs: number): Promise<NodeSetupSecret>;
  /** When a join code, a setup secret not yet used, expires; null for one unknown, used or expired. */
  nodeJoinExpiry(code: string): Promise<number | null>;
  /** Everything the alarm does, for a given `now` (tests pass a later one instead of waiting). */
  runChecks(now: number): Promise<void>;
}

export type DispatchCommand = {
  request_id: string;
  conversation_id: string;
  tool_call_id: string;
  tool: string;
  parameters: Record<string, unknown>;
  timeout_ms: number;
  /** who approved an approval-required call ("person", "rule:<id>"), for the audit log */
  approval?: string;
  /** the call's W3C trace context, passed on in the command frame (docs/tracing.md) */
  traceparent?: string;
  /** what the model is shown of an image, passed on so the device fits its pictures (docs/images.md) */
  image_limits?: ImageFit;
};

export type DeviceIntake = { never_connected: true } | { never_connected: false; skills: SkillManifest[] };

export type ElicitationDelivery = "sent" | "offline" | "ended";

export type DispatchAnswer = { accepted: boolean; state: string };

export type DeviceView = DeviceRecord & {
  online: boolean;
  /** when the device last showed it is alive (a frame, or a ping answered by auto-response) */
  last_alive: number | null;
  commands: Record<string, number>;
  counters: Record<string, number>;
  tokens: number;
  /** OpenClaw device keys refused on this agent id until an admin clears them */
  revoked_keys: RevokedKey[];
  /** offline because whoever held its socket found it unreachable (a bridge's EvoClaw probe), and why */
  offline_reason: string | null;
};
