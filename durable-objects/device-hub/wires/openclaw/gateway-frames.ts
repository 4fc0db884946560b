import { z } from "zod";

/**
 * The frames of OpenClaw's gateway protocol (v4, and v3 for a node that asks) that the hub reads
 * and writes on a node's socket, written from its published schema (@openclaw/gateway-protocol,
 * protocol.schema.json) and the node host's client. Only what a node sends is parsed; fields the
 * hub does not use pass through unread, so a newer node still connects.
 */

export const GATEWAY_PROTOCOL = 4;
/** A node (role and mode `node`) may speak the version before the current one. */
export const MIN_NODE_PROTOCOL = 3;

export const RequestFrame = z.object({
  type: z.literal("req"),
  id: z.string().min(1).max(128),
  method: z.string().min(1).max(128),
  params: z.unknown().optional(),
});
export type RequestFrame = z.infer<typeof RequestFrame>;

export const DeviceIdentity = z.object({
  id: z.string().min(1).max(128),
  publicKey: z.string().min(1).max(1024),
  signature: z.string().min(1).max(1024),
  signedAt: z.number().int().nonnegative(),
  nonce: z.string().min(1).max(256),
});
export type DeviceIdentity = z.infer<typeof DeviceIdentity>;

const ShortText = z.string().max(256);

/** `connect` params: who the node is, what it runs, and the credential it brings. */
export const ConnectParams = z.object({
  minProtocol: z.number().int().min(1),
  maxProtocol: z.number().int().min(1),
  client: z.object({
    id: ShortText.min(1),
    displayName: ShortText.optional(),
    version: ShortText.optional(),
    platform: ShortText.optional(),
    deviceFamily: ShortText.optional(),
    mode: ShortText.min(1),
    instanceId: ShortText.optional(),
  }),
  role: ShortText.default("operator"),
  scopes: z.array(ShortText).max(64).default([]),
  caps: z.array(ShortText).max(256).default([]),
  commands: z.array(ShortText).max(512).default([]),
  auth: z
    .object({
      token: z.string().max(1024).optional(),
      bootstrapToken: z.string().max(1024).optional(),
      deviceToken: z.string().max(1024).optional(),
      password: z.string().max(1024).optional(),
    })
    .optional(),
  device: DeviceIdentity.optional(),
});
export type ConnectParams = z.infer<typeof ConnectParams>;

/** The version both sides speak, or null: 4, or 3 for a node (role and mode `node`) that asks, as OpenClaw's gateway does. */
export function negotiateProtocol(p: ConnectParams): number | null {
  if (p.minProtocol <= GATEWAY_PROTOCOL && p.maxProtocol >= GATEWAY_PROTOCOL) return GATEWAY_PROTOCOL;
  const node = p.role === "node" && p.client.mode === "node";
  if (node && p.minProtocol <= MIN_NODE_PROTOCOL && p.maxProtocol >= MIN_NODE_PROTOCOL) return MIN_NODE_PROTOCOL;
  return null;
}

export const NodeInvokeResultParams = z.object({
  id: z.string().min(1).max(256),
  nodeId: z.string().min(1).max(256),
  ok: z.boolean(),
  payload: z.unknown().optional(),
  payloadJSON: z.string().nullish(),
  error: z.object({ code: z.string().optional(), message: z.string().optional() }).nullish(),
});
export type NodeInvokeResultParams = z.infer<typeof NodeInvokeResultParams>;

export const NodeInvokeProgressParams = z.object({
  invokeId: z.string().min(1).max(256),
  nodeId: z.string().min(1).max(256),
  seq: z.number().int().nonnegative(),
  chunk: z.string().max(16_384),
});
export type NodeInvokeProgressParams = z.infer<typeof NodeInvokeProgressParams>;

/** A tool a node publishes (node-hosted MCP servers, plugins), run through one of its commands. */
export const NodePluginTool = z.object({
  pluginId: z.string().min(1).max(128),
  name: z.string().regex(/^[A-Za-z][A-Za-z0-9_-]{0,63}$/),
  description: z.string().min(1).max(4096),
  parameters: z.record(z.string(), z.unknown()).optional(),
  command: z.string().min(1).max(128).optional(),
  mcp: z.object({ server: z.string().min(1).max(128), tool: z.string().min(1).max(256) }).optional(),
});
export type NodePluginTool = z.infer<typeof NodePluginTool>;

export const NodePluginToolsUpdateParams = z.object({ tools: z.array(NodePluginTool).max(256) });

/**
 * A skill a node publishes (`node.skills.update`): a `SKILL.md` from its state directory's
 * `skills/<name>/`, as OpenClaw's NodeSkillsUpdateParamsSchema bounds it.
 */
export const NodeSkill = z.object({
  name: z.string().regex(/^(?!.*--)[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/),
  description: z.string().min(1).max(1024),
  content: z.string().max(65_536),
});
export type NodeSkill = z.infer<typeof NodeSkill>;

export const NodeSkillsUpdateParams = z.object({ skills: z.array(NodeSkill).max(64) });

/** What a node published since it signed in: its tools and its skills. */
export type Published = { tools: NodePluginTool[]; skills: NodeSkill[] };

/** One response error; `details.code` is what OpenClaw's clients branch on. */
export type GatewayError = { code: string; message: string; details?: Record<string, unknown>; retryable?: boolean };

export const responseOk = (id: string, payload: unknown) => ({ type: "res", id, ok: true, payload });
export const responseError = (id: string, error: GatewayError) => ({ type: "res", id, ok: false, error });
export const event = (name: string, payload: unknown) => ({ type: "event", event: name, payload });

/** The methods a node may call on this gateway; anything else is answered `unknown method`. */
export const NODE_METHODS = [
  "node.invoke.result",
  "node.invoke.progress",
  "node.event",
  "node.pluginTools.update",
  "node.skills.update",
  "skills.bins",
] as const;
/** The events the hub sends a node. */
export const GATEWAY_EVENTS = ["connect.challenge", "tick", "node.invoke.request", "node.invoke.cancel"] as const;

export type HelloOkInput = {
  protocol: number;
  connId: string;
  version: string;
  tickIntervalMs: number;
  maxPayload: number;
  deviceToken?: string;
  now: number;
};

/** `hello-ok`: every field OpenClaw's HelloOk schema requires, and the device token when one is issued. */
export function helloOk(h: HelloOkInput) {
  return {
    type: "hello-ok",
    protocol: h.protocol,
    server: { version: h.version, connId: h.connId },
    features: { methods: [...NODE_METHODS], events: [...GATEWAY_EVENTS] },
    snapshot: { presence: [], health: {}, stateVersion: { presence: 0, health: 0 }, uptimeMs: 0 },
    auth: {
      role: "node",
      scopes: [],
      ...(h.deviceToken ? { deviceToken: h.deviceToken, issuedAtMs: h.now } : {}),
    },
    policy: { maxPayload: h.maxPayload, maxBufferedBytes: h.maxPayload * 2, tickIntervalMs: h.tickIntervalMs },
  };
}
