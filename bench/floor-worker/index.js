// Plain JS on purpose: the repo's Node tsconfig covers bench/, and this file runs in workerd.
import { DurableObject } from "cloudflare:workers";

/**
 * One Durable Object per `?name=`, holding WebSockets through the same hibernation API the
 * DeviceHubDO uses. A text frame is echoed as is, except `fetch <json {url, body}>`: the object
 * POSTs `body` to `url`, reads the whole response (an SSE stream from the scripted model), then
 * answers `fetched <bytes>`. So one client round trip of a `fetch` frame = one WebSocket round trip
 * + one HTTP request from a Durable Object to the model: the floor of one tool step.
 *
 * For bench/profile-units.ts, what the runtime charges for the pieces a durable round is made of:
 * `write <n>` answers after n one-row SQLite writes (one commit), `rpc` after one RPC to a peer
 * object that writes one row (another object's event and commit).
 */
export class FloorDO extends DurableObject {
  async fetch(request) {
    if (request.headers.get("upgrade") !== "websocket") return new Response("websocket only", { status: 426 });
    const pair = new WebSocketPair();
    this.ctx.acceptWebSocket(pair[1]);
    return new Response(null, { status: 101, webSocket: pair[0] });
  }

  async webSocketMessage(ws, message) {
    if (typeof message === "string" && message.startsWith("fetch ")) {
      const { url, body } = JSON.parse(message.slice(6));
      const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body });
      const text = await res.text();
      ws.send(`fetched ${res.status} ${text.length}`);
      return;
    }
    if (typeof message === "string" && message.startsWith("write ")) {
      this.writeRows(Number(message.slice(6)));
      ws.send("wrote");
      return;
    }
    if (message === "rpc") {
      const name = `${this.ctx.id.toString()}-peer`;
      await this.env.FLOOR.get(this.env.FLOOR.idFromName(name)).note();
      ws.send("noted");
      return;
    }
    ws.send(message);
  }

  async note() {
    this.writeRows(1);
  }

  writeRows(n) {
    const sql = this.ctx.storage.sql;
    if (!this.table) {
      sql.exec("CREATE TABLE IF NOT EXISTS rows (k INTEGER PRIMARY KEY, v TEXT NOT NULL)");
      this.table = true;
    }
    for (let i = 0; i < n; i++)
      sql.exec("INSERT INTO rows (v) VALUES (?)", "a row of about forty bytes, as a ledger's");
  }

  async webSocketClose(ws, code) {
    try {
      ws.close(code, "bye");
    } catch {
      // already closed
    }
  }
}

export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    if (url.pathname === "/healthz") return new Response("ok");
    if (url.pathname !== "/ws") return new Response("not found", { status: 404 });
    const name = url.searchParams.get("name") ?? "floor";
    return env.FLOOR.get(env.FLOOR.idFromName(name)).fetch(request);
  },
};
