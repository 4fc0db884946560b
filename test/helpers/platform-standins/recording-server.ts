import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A local HTTP server standing in for a chat platform's API: it records every call (method, path,
 * headers, the body decoded as the platform's client sent it) and answers through the platform's
 * handler, unless a test queued a failure for that path (`failNext`: a 429 with the platform's
 * retry-after, a 500 …). Loopback only.
 */

export type RecordedCall = {
  method: string;
  path: string;
  headers: Record<string, string>;
  /** JSON bodies parsed; form bodies as an object; multipart as fields plus files (bytes). */
  body: unknown;
  /** What the stand-in answered (a message's id or ts is in it). */
  answer?: unknown;
};

export type Reply = { status: number; headers?: Record<string, string>; body?: unknown };

export type StandIn = {
  /** http://127.0.0.1:port */
  origin: string;
  calls: RecordedCall[];
  /** Answer the next call whose path contains `pathPart` with `reply` instead (once). */
  failNext(pathPart: string, reply: Reply): void;
  close(): Promise<void>;
};

export type MultipartBody = { fields: Record<string, string>; files: Record<string, { type: string; bytes: Buffer }> };

async function decode(req: IncomingMessage, raw: Buffer, origin: string): Promise<unknown> {
  const type = req.headers["content-type"] ?? "";
  if (raw.length === 0) return null;
  if (type.startsWith("application/json")) return JSON.parse(raw.toString("utf8"));
  if (type.startsWith("application/x-www-form-urlencoded"))
    return Object.fromEntries(new URLSearchParams(raw.toString("utf8")));
  if (type.startsWith("multipart/form-data")) {
    const form = await new Request(`${origin}${req.url}`, {
      method: req.method,
      headers: { "content-type": type },
      body: new Uint8Array(raw),
    }).formData();
    const out: MultipartBody = { fields: {}, files: {} };
    for (const [name, value] of form) {
      if (typeof value === "string") out.fields[name] = value;
      else out.files[name] = { type: value.type, bytes: Buffer.from(await value.arrayBuffer()) };
    }
    return out;
  }
  return raw;
}

export async function startRecordingServer(handle: (call: RecordedCall, origin: string) => Reply): Promise<StandIn> {
  const calls: RecordedCall[] = [];
  const failures: { pathPart: string; reply: Reply }[] = [];
  let origin = "";
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const call: RecordedCall = {
      method: req.method ?? "GET",
      path: req.url ?? "/",
      headers: Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)])),
      body: await decode(req, Buffer.concat(chunks), origin),
    };
    calls.push(call);
    const failure = failures.findIndex((f) => call.path.includes(f.pathPart));
    const reply = failure >= 0 ? failures.splice(failure, 1)[0]!.reply : handle(call, origin);
    call.answer = reply.body;
    const bytes = reply.body instanceof Uint8Array;
    res.writeHead(reply.status, {
      ...(reply.body === undefined || bytes ? {} : { "content-type": "application/json" }),
      ...reply.headers,
    });
    if (reply.body === undefined) res.end();
    else res.end(bytes ? reply.body : JSON.stringify(reply.body));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    calls,
    failNext: (pathPart, reply) => failures.push({ pathPart, reply }),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A tiny PNG (1×1), the bytes a stand-in serves as a user's picture. */
export const ONE_PIXEL_PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==",
  "base64",
);
