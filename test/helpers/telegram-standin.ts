import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";

/** One Bot API call as the stand-in received it. */
export type BotApiCall = {
  method: string;
  params: Record<string, unknown>;
  at: number;
  /** the id a sendMessage / sendPhoto answered with */
  message_id?: number;
  /** answered with a scripted failure */
  failed?: true;
};

/** A scripted failure for the next calls of a method, answered the way the Bot API answers errors. */
export type BotApiFailure = {
  method: string;
  times: number;
  status: 429 | 500 | 400;
  retry_after?: number;
  description?: string;
};

export type TelegramStandin = {
  /** the base URL to give as TELEGRAM_API_BASE_URL */
  url: string;
  calls: () => BotApiCall[];
  callsOf: (method: string) => BotApiCall[];
  fail: (failure: BotApiFailure) => void;
  /** a file getFile + /file/bot<token>/<path> serve */
  putFile: (fileId: string, bytes: Uint8Array) => void;
  reset: () => void;
  close: () => Promise<void>;
};

/**
 * A local stand-in for api.telegram.org speaking the Bot API's wire format
 * (https://core.telegram.org/bots/api#making-requests): `POST /bot<token>/<method>` with a JSON or
 * multipart body, answered `{"ok":true,"result":…}` or `{"ok":false,"error_code":…,"description":…,
 * "parameters":{"retry_after":…}}`. It records every call, refuses a wrong token with 401 as
 * Telegram does, and fails the next calls of a method on request.
 */
export async function startTelegramStandin(token: string): Promise<TelegramStandin> {
  const calls: BotApiCall[] = [];
  const failures: BotApiFailure[] = [];
  const files = new Map<string, Uint8Array>();
  let nextMessageId = 100;

  const answer = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
  };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://standin");
    const file = url.pathname.match(/^\/file\/bot([^/]+)\/(.+)$/);
    if (file) {
      const bytes = file[1] === token ? files.get(file[2]!) : undefined;
      if (!bytes) return void res.writeHead(404).end();
      return void res.writeHead(200, { "content-type": "image/jpeg" }).end(Buffer.from(bytes));
    }
    const m = url.pathname.match(/^\/bot([^/]+)\/(\w+)$/);
    if (!m) return answer(res, 404, { ok: false, error_code: 404, description: "Not Found" });
    if (m[1] !== token) return answer(res, 401, { ok: false, error_code: 401, description: "Unauthorized" });
    const method = m[2]!;
    const params = await readParams(req);
    const call: BotApiCall = { method, params, at: Date.now() };
    calls.push(call);
    const failure = failures.find((f) => f.method === method && f.times > 0);
    if (failure) {
      failure.times -= 1;
      call.failed = true;
      const description =
        failure.description ??
        (failure.status === 429
          ? `Too Many Requests: retry after ${failure.retry_after ?? 1}`
          : "Internal Server Error");
      return answer(res, failure.status, {
        ok: false,
        error_code: failure.status,
        description,
        ...(failure.retry_after !== undefined ? { parameters: { retry_after: failure.retry_after } } : {}),
      });
    }
    const chat = { id: Number(params.chat_id ?? 0), type: "private" };
    const date = Math.floor(Date.now() / 1000);
    switch (method) {
      case "sendMessage":
      case "sendPhoto":
        call.message_id = nextMessageId++;
        return answer(res, 200, { ok: true, result: { message_id: call.message_id, chat, date, text: params.text } });
      case "editMessageText":
        return answer(res, 200, {
          ok: true,
          result: { message_id: Number(params.message_id), chat, date, edit_date: date, text: params.text },
        });
      case "getFile": {
        const id = String(params.file_id);
        if (!files.has(id))
          return answer(res, 400, { ok: false, error_code: 400, description: "Bad Request: invalid file_id" });
        return answer(res, 200, { ok: true, result: { file_id: id, file_unique_id: id, file_path: id } });
      }
      case "sendChatAction":
      case "answerCallbackQuery":
      case "setWebhook":
        return answer(res, 200, { ok: true, result: true });
      default:
        return answer(res, 404, { ok: false, error_code: 404, description: "Not Found: method not found" });
    }
  }

  const server: Server = createServer((req, res) => {
    handle(req, res).catch(() => answer(res, 500, { ok: false, error_code: 500, description: "stand-in failed" }));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  return {
    url,
    calls: () => [...calls],
    callsOf: (method) => calls.filter((c) => c.method === method),
    fail: (f) => failures.push({ ...f }),
    putFile: (id, bytes) => files.set(id, bytes),
    reset: () => {
      calls.length = 0;
      failures.length = 0;
    },
    close: () => new Promise((r) => server.close(() => r())),
  };
}

/** JSON bodies as they are; multipart bodies (sendPhoto) as their text fields plus the file's size. */
async function readParams(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const raw = Buffer.concat(chunks);
  const type = req.headers["content-type"] ?? "";
  if (type.startsWith("application/json")) return JSON.parse(raw.toString("utf8")) as Record<string, unknown>;
  if (type.startsWith("multipart/form-data")) {
    const form = await new Response(raw, { headers: { "content-type": type } }).formData();
    const params: Record<string, unknown> = {};
    for (const [k, v] of form.entries()) params[k] = typeof v === "string" ? v : { file_bytes: v.size };
    return params;
  }
  return Object.fromEntries(new URLSearchParams(raw.toString("utf8")));
}
