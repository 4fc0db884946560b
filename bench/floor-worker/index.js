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

/** A table made once per object instance (the statement is cheap, but not free). */
function ensure(obj, ddl) {
  if (!obj.table) {
    obj.ctx.storage.sql.exec(ddl);
    obj.table = true;
  }
}

/**
 * The durable floor's conversation (docs/benchmarks.md#the-durable-floor): one per message, as the
 * product's. `run` makes `rounds` tool rounds on the device behind hub `device`, each:
 * the model request whose answer asks for the call; commit 1, the step, before dispatch (commit
 * before perform: a restart must neither lose the call nor run one the history does not have); the
 * dispatch RPC into the hub; the hub's hand-back (an RPC into `deliver`); commit 2, the result (a
 * restart must not run the call again). Then the final model request. Nothing else is stored.
 */
export class FloorConversationDO extends DurableObject {
  pending = new Map();

  async run({ conversation, device, rounds, url, body }) {
    const sql = this.ctx.storage.sql;
    const hub = this.env.FLOOR_HUB.get(this.env.FLOOR_HUB.idFromName(device));
    const model = async () => {
      const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body });
      const text = await res.text();
      if (!res.ok) throw new Error(`model answered ${res.status}`);
      return text;
    };
    for (let n = 0; n < rounds; n++) {
      await model();
      const id = crypto.randomUUID();
      // A new conversation's table rides its first step's commit: no commit of its own.
      ensure(this, "CREATE TABLE IF NOT EXISTS steps (n INTEGER PRIMARY KEY, request_id TEXT, result TEXT)");
      sql.exec("INSERT INTO steps (n, request_id) VALUES (?, ?)", n, id);
      const result = new Promise((resolve) => this.pending.set(id, resolve));
      await hub.dispatch({ conversation, request_id: id, tool: "bench_ok" });
      const out = await result;
      sql.exec("UPDATE steps SET result = ? WHERE n = ?", out, n);
    }
    await model();
    return rounds;
  }

  /** The hub's hand-back: the result reaches the run waiting for it. */
  async deliver(requestId, result) {
    const resolve = this.pending.get(requestId);
    this.pending.delete(requestId);
    resolve?.(result);
  }
}

/**
 * The durable floor's hub: one per device, holding its WebSocket through the hibernation API as
 * the DeviceHubDO does. `dispatch` commits the ledger row (commit 3: the hub redelivers after a
 * reconnect or its own restart and knows a repeat: at most once by request id), then sends the
 * command frame (the output gate holds it until the row is durable). The device's result frame:
 * commit 4, the outcome (the hub redelivers it to a conversation that did not take it and knows a
 * late duplicate); the hand-back RPC to the conversation; the ack (held until the outcome is
 * durable: from then on the device may forget the result).
 */
export class FloorHubDO extends DurableObject {
  async fetch(request) {
    if (request.headers.get("upgrade") !== "websocket") return new Response("websocket only", { status: 426 });
    const pair = new WebSocketPair();
    this.ctx.acceptWebSocket(pair[1]);
    return new Response(null, { status: 101, webSocket: pair[0] });
  }

  async dispatch({ conversation, request_id, tool }) {
    ensure(
      this,
      "CREATE TABLE IF NOT EXISTS ledger (request_id TEXT PRIMARY KEY, conversation TEXT, state TEXT, result TEXT)",
    );
    const frame = JSON.stringify({
      type: "command",
      command: "tool",
      request_id,
      payload: { tool, parameters: {}, timeout_ms: 10000, request_id },
    });
    this.ctx.storage.sql.exec(
      "INSERT INTO ledger (request_id, conversation, state) VALUES (?, ?, 'sent')",
      request_id,
      conversation,
    );
    const [ws] = this.ctx.getWebSockets();
    if (!ws) throw new Error("device offline");
    ws.send(frame);
  }

  async webSocketMessage(ws, message) {
    ensure(
      this,
      "CREATE TABLE IF NOT EXISTS ledger (request_id TEXT PRIMARY KEY, conversation TEXT, state TEXT, result TEXT)",
    );
    const frame = JSON.parse(typeof message === "string" ? message : new TextDecoder().decode(message));
    if (frame.type !== "result") return;
    const [row] = this.ctx.storage.sql
      .exec(
        "UPDATE ledger SET state = 'done', result = ? WHERE request_id = ? AND state = 'sent' RETURNING conversation",
        frame.result,
        frame.request_id,
      )
      .toArray();
    if (row) {
      const conv = this.env.FLOOR_CONVERSATION.get(this.env.FLOOR_CONVERSATION.idFromName(row.conversation));
      await conv.deliver(frame.request_id, frame.result);
    }
    ws.send(JSON.stringify({ type: "ack", request_ids: [frame.request_id] }));
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
    // The durable floor: a device's socket to its hub, and a message run by its conversation.
    if (url.pathname === "/device") {
      const name = url.searchParams.get("name") ?? "device";
      return env.FLOOR_HUB.get(env.FLOOR_HUB.idFromName(name)).fetch(request);
    }
    if (url.pathname === "/message" && request.method === "POST") {
      const m = await request.json();
      const stub = env.FLOOR_CONVERSATION.get(env.FLOOR_CONVERSATION.idFromName(m.conversation));
      const calls = await stub.run(m);
      return Response.json({ calls });
    }
    if (url.pathname !== "/ws") return new Response("not found", { status: 404 });
    const name = url.searchParams.get("name") ?? "floor";
    return env.FLOOR.get(env.FLOOR.idFromName(name)).fetch(request);
  },
};
