/**
 * An OpenClaw node host, written from OpenClaw's protocol (packages/gateway-client: client.ts,
 * device-auth.ts, connect-auth.ts; src/node-host/runner.ts, client.ts) rather than from our
 * gateway, for the tests that run inside workerd and in Node:
 * - waits for `connect.challenge`, then sends `connect` (role and mode `node`, protocols 3–4,
 *   its commands) signed with its Ed25519 key over the `v3` payload, with the challenge's `ts` as
 *   `signedAt`; its device id is the SHA-256 (hex) of its raw public key;
 * - presents, in OpenClaw's order, a shared token (`auth.token`), else its stored device token
 *   (`auth.deviceToken`), else a bootstrap token; keeps the `deviceToken` a hello-ok gives it;
 * - runs `node.invoke.request` events through `onInvoke` and answers with `node.invoke.result`;
 *   a `node.invoke.cancel` is recorded and never answered (the real node kills and stays quiet);
 * - every request it makes waits for its `res` (recorded in `responses`).
 */

export type InvokeRequest = {
  id: string;
  nodeId: string;
  command: string;
  paramsJSON?: string | null;
  timeoutMs?: number;
  idempotencyKey?: string;
};
export type InvokeAnswer = {
  ok: boolean;
  payload?: unknown;
  payloadJSON?: string;
  error?: { code: string; message: string };
};

export type NodeKey = { publicRaw: Uint8Array; privateKey: CryptoKey; deviceId: string };

export type GatewayFrame = { type: string; [k: string]: unknown };

const b64url = (bytes: Uint8Array) => {
  let bin = "";
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
};
const hex = (bytes: Uint8Array) => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");

export async function makeNodeKey(): Promise<NodeKey> {
  const pair = (await crypto.subtle.generateKey({ name: "Ed25519" }, true, ["sign", "verify"])) as CryptoKeyPair;
  const publicRaw = new Uint8Array((await crypto.subtle.exportKey("raw", pair.publicKey)) as ArrayBuffer);
  const deviceId = hex(new Uint8Array(await crypto.subtle.digest("SHA-256", publicRaw)));
  return { publicRaw, privateKey: pair.privateKey, deviceId };
}

export type NodeOptions = {
  key: NodeKey;
  commands?: string[];
  caps?: string[];
  auth?: { token?: string; deviceToken?: string; bootstrapToken?: string };
  onInvoke?: (req: InvokeRequest) => InvokeAnswer | Promise<InvokeAnswer | null> | null;
  /** sign a different payload than the protocol says (for refusals) */
  tamper?: (payload: string) => string;
  protocols?: { min: number; max: number };
  /** what it says it runs on (default linux, no device family): an iPhone says iOS and iPhone */
  platform?: string;
  deviceFamily?: string;
};

/** A node on an open WebSocket (the socket the test got from the worker or from `ws`). */
export function openclawNode(ws: WebSocket, opts: NodeOptions) {
  const frames: GatewayFrame[] = [];
  const invokes: InvokeRequest[] = [];
  const cancels: string[] = [];
  const responses = new Map<string, GatewayFrame>();
  let seq = 0;
  let deviceToken: string | undefined = opts.auth?.deviceToken;

  const send = (frame: object) => ws.send(JSON.stringify(frame));
  const waitFor = async <T>(fn: () => T | undefined, what: string, ms = 5000): Promise<T> => {
    const deadline = Date.now() + ms;
    for (;;) {
      const v = fn();
      if (v !== undefined) return v;
      if (Date.now() > deadline)
        throw new Error(`openclaw node: no ${what}; got ${JSON.stringify(frames).slice(0, 2000)}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  };

  const request = async (method: string, params: unknown): Promise<GatewayFrame> => {
    const id = `r${++seq}`;
    send({ type: "req", id, method, params });
    return waitFor(() => responses.get(id), `response to ${method}`);
  };

  ws.addEventListener("message", (e: MessageEvent) => {
    const frame = JSON.parse(String(e.data)) as GatewayFrame;
    frames.push(frame);
    if (frame.type === "res") responses.set(String(frame.id), frame);
    if (frame.type !== "event") return;
    const payload = frame.payload as Record<string, unknown>;
    if (frame.event === "node.invoke.cancel") cancels.push(String(payload.invokeId));
    if (frame.event === "node.invoke.request") {
      const req = payload as unknown as InvokeRequest;
      invokes.push(req);
      void (async () => {
        const answer = await opts.onInvoke?.(req);
        if (answer) await request("node.invoke.result", { id: req.id, nodeId: req.nodeId, ...answer });
      })();
    }
  });

  /** `connect` as the node host sends it; resolves with the response (hello-ok or an error). */
  const connect = async (): Promise<GatewayFrame> => {
    const challenge = await waitFor(
      () => frames.find((f) => f.type === "event" && f.event === "connect.challenge"),
      "connect.challenge",
    );
    const { nonce, ts } = challenge.payload as { nonce: string; ts: number };
    const auth = { ...opts.auth, ...(deviceToken ? { deviceToken } : {}) };
    const signed = auth.token ?? auth.deviceToken ?? auth.bootstrapToken ?? "";
    const platform = opts.platform ?? "linux";
    const client = {
      id: "node-host",
      version: "2026.9.6",
      platform,
      ...(opts.deviceFamily ? { deviceFamily: opts.deviceFamily } : {}),
      mode: "node",
      displayName: "test node",
    };
    // OpenClaw signs both labels lower-cased, ASCII only (normalizeDeviceMetadataForAuth).
    const signedLabel = (v: string | undefined) => (v ?? "").trim().replace(/[A-Z]/g, (c) => c.toLowerCase());
    const v3 = [
      "v3",
      opts.key.deviceId,
      client.id,
      client.mode,
      "node",
      "",
      String(ts),
      signed,
      nonce,
      signedLabel(platform),
      signedLabel(opts.deviceFamily),
    ].join("|");
    const payload = opts.tamper ? opts.tamper(v3) : v3;
    const signature = new Uint8Array(
      await crypto.subtle.sign({ name: "Ed25519" }, opts.key.privateKey, new TextEncoder().encode(payload)),
    );
    const res = await request("connect", {
      minProtocol: opts.protocols?.min ?? 3,
      maxProtocol: opts.protocols?.max ?? 4,
      client,
      role: "node",
      scopes: [],
      caps: opts.caps ?? ["system"],
      commands: opts.commands ?? ["system.run", "system.which"],
      ...(Object.values(auth).some(Boolean) ? { auth } : {}),
      device: {
        id: opts.key.deviceId,
        publicKey: b64url(opts.key.publicRaw),
        signature: b64url(signature),
        signedAt: ts,
        nonce,
      },
    });
    const issued = (res.payload as { auth?: { deviceToken?: string } } | undefined)?.auth?.deviceToken;
    if (issued) deviceToken = issued;
    return res;
  };

  return {
    ws,
    frames,
    invokes,
    cancels,
    connect,
    request,
    deviceToken: () => deviceToken,
    next: (pred: (f: GatewayFrame) => boolean, what = "frame", ms?: number) =>
      waitFor(() => frames.find(pred), what, ms),
  };
}

export type OpenClawTestNode = ReturnType<typeof openclawNode>;
