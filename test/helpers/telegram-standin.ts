import { createHash } from "node:crypto";
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
  /** a file getFile describes (its file_path and file_size) and /file/bot<token>/<file_path> serves */
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
      const index = Number(file[2]!.match(/^photos\/file_(\d+)\.jpg$/)?.[1] ?? -1);
      const bytes = file[1] === token ? [...files.values()][index] : undefined;
      if (!bytes) return void res.writeHead(404).end();
      return void res.writeHead(200, { "content-type": "application/octet-stream" }).end(Buffer.from(bytes));
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
        call.message_id = nextMessageId++;
        return answer(res, 200, { ok: true, result: { message_id: call.message_id, chat, date, text: params.text } });
      case "sendPhoto": {
        // A photo must come as a file (multipart), as edgeloop uploads it; Telegram answers with its sizes.
        const photo = params.photo as { file_bytes?: number } | undefined;
        if (typeof photo?.file_bytes !== "number")
          return answer(res, 400, {
            ok: false,
            error_code: 400,
            description: "Bad Request: there is no photo in the request",
          });
        call.message_id = nextMessageId++;
        const size = {
          file_id: `photo${call.message_id}`,
          file_unique_id: `u${call.message_id}`,
          width: 90,
          height: 90,
        };
        return answer(res, 200, {
          ok: true,
          result: {
            message_id: call.message_id,
            chat,
            date,
            photo: [size],
            ...(params.caption ? { caption: params.caption } : {}),
          },
        });
      }
      case "editMessageText":
        return answer(res, 200, {
          ok: true,
          result: { message_id: Number(params.message_id), chat, date, edit_date: date, text: params.text },
        });
      case "getFile": {
        const id = String(params.file_id);
        if (!files.has(id))
          return answer(res, 400, { ok: false, error_code: 400, description: "Bad Request: invalid file_id" });
        // As Telegram answers: the path to download from /file/bot<token>/<file_path>, and the size.
        const path = `photos/file_${[...files.keys()].indexOf(id)}.jpg`;
        return answer(res, 200, {
          ok: true,
          result: { file_id: id, file_unique_id: `u_${id}`, file_size: files.get(id)!.byteLength, file_path: path },
        });
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
    for (const [k, v] of form.entries())
      params[k] =
        typeof v === "string"
          ? v
          : {
              file_bytes: v.size,
              file_name: v.name,
              content_type: v.type,
              sha256: createHash("sha256")
                .update(Buffer.from(await v.arrayBuffer()))
                .digest("hex"),
            };
    return params;
  }
  return Object.fromEntries(new URLSearchParams(raw.toString("utf8")));
}
