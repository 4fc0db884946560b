import type { IncomingMessage, ServerResponse } from "node:http";

/** The scripted model's HTTP plumbing: JSON in and out, SSE out, clocks. */

const MAX_BODY_BYTES = 20 * 1024 * 1024;

export function readJson(req: IncomingMessage): Promise<{ ok: true; value: unknown } | { ok: false; error: string }> {
  return new Promise((resolve) => {
    const parts: Buffer[] = [];
    let size = 0;
    req.on("data", (part: Buffer) => {
      size += part.length;
      if (size <= MAX_BODY_BYTES) parts.push(part);
    });
    req.on("error", (e) => resolve({ ok: false, error: e.message }));
    req.on("end", () => {
      if (size > MAX_BODY_BYTES) return resolve({ ok: false, error: "request body too large" });
      const text = Buffer.concat(parts).toString("utf8");
      try {
        resolve({ ok: true, value: text === "" ? {} : JSON.parse(text) });
      } catch (e) {
        resolve({ ok: false, error: `body is not JSON: ${(e as Error).message}` });
      }
    });
  });
}

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text), ...headers });
  res.end(text);
}

export function startSse(res: ServerResponse, headers: Record<string, string> = {}): void {
  res.writeHead(200, {
    "content-type": "text/event-stream",
    "cache-control": "no-cache",
    connection: "keep-alive",
    ...headers,
  });
}

/** The request's headers, one string each (repeated headers joined), names in lower case. */
export function headersOf(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  return out;
}

export const preciseNow = () => performance.timeOrigin + performance.now();
export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
