import {
  type DeviceFrame,
  type ElicitationFrame,
  elicitationAnswerFrame,
  type HelloFrame,
  type ManifestUpdateFrame,
  type Parsed,
  type ProgressFrame,
  type ResultFrame,
  type ToolOutcome,
} from "@edgeloop/protocol";
import { log } from "../../runtime/log.js";
import { conversationFor } from "../addresses.js";
import type { DurableObjectBindings } from "../bindings.js";
import type { HubChecks } from "./hub-checks.js";
import type { CommandOutcomes } from "./ledger/command-outcomes.js";
import type { Ledger } from "./ledger/ledger.js";
import { CLOSE } from "./sockets/close-codes.js";
import type { DeviceSockets, SocketAttachment } from "./sockets/device-sockets.js";
import { type DeviceStore, manifestUpdated, recordFromHello } from "./storage/device-record.js";
import type { RegistryReporter } from "./views/registry-reporter.js";
import type { WireSet } from "./wires/wire-set.js";

type Deps = {
  env: DurableObjectBindings;
  ledger: Ledger;
  store: DeviceStore;
  sockets: DeviceSockets;
  wires: WireSet;
  outcomes: CommandOutcomes;
  registry: RegistryReporter;
  checks: HubChecks;
};

/**
 * What the hub does with a device's frame once its wire decoded it, the same for every wire:
 * `hello` (manifest, re-sending what the device never got), `manifest_update`, `result`
 * (exactly once, into the ledger and on to the conversation), `progress`, `accepted`,
 * `elicitation` (a device MCP server's question, on to the conversation); and the refusal of
 * anything else, counted, which closes a socket that keeps sending bad frames.
 */
export class FrameIntake {
  constructor(private readonly d: Deps) {}

  async handle(ws: WebSocket, att: SocketAttachment, parsed: Parsed<DeviceFrame>): Promise<void> {
    if (!parsed.ok) return this.reject(ws, att, `invalid frame: ${parsed.error.slice(0, 300)}`);
    const frame = parsed.value;
    if (frame.type === "hello") return this.onHello(ws, att, frame);
    // Until the device has said who it is, it gets no commands and may send no results.
    if (!att.hello)
      return this.reject(ws, att, `'${frame.type}' before hello`, "request_id" in frame ? frame.request_id : undefined);
    if (frame.type === "manifest_update") return this.onManifestUpdate(att, frame);
    if (frame.type === "result") return this.onResult(ws, att, frame);
    // The device (or its broker) took the command; unknown or finished ids are ignored (a hint).
    if (frame.type === "accepted") return this.d.ledger.markAccepted(frame.request_id);
    if (frame.type === "elicitation") return this.onElicitation(ws, att, frame);
    return this.onProgress(ws, att, frame);
  }

  /** Refuse a frame, telling the device why; too many bad frames close the socket. */
  reject(ws: WebSocket, att: SocketAttachment, reason: string, requestId?: string): void {
    this.d.store.count("rejected_frames");
    const tooMany = this.d.sockets.badFrame(ws, att);
    log("warn", "frame rejected", { agent_id: att.agent_id, reason, request_id: requestId });
    this.d.wires.send(ws, { type: "rejected", reason, ...(requestId ? { request_id: requestId } : {}) });
    if (tooMany) this.d.sockets.close(ws, CLOSE.TOO_MANY_BAD_FRAMES);
  }

  private async onHello(ws: WebSocket, att: SocketAttachment, hello: HelloFrame): Promise<void> {
    const { store, sockets, ledger, wires } = this.d;
    if (hello.agent_id !== att.agent_id) {
      store.count("rejected_frames");
      sockets.close(ws, CLOSE.AGENT_MISMATCH);
      return;
    }
    // The hello is where every wire's sign-in ends, so the device is recorded here, the same way for
    // each: its agent id is what the registry report, the audit and the metrics are keyed by
    // (docs/architecture.md#the-device-registry-and-how-it-scales).
    store.rememberAgentId(att.agent_id);
    store.save(recordFromHello(store.load(att.agent_id), hello, Date.now()));
    store.setOfflineReason(null);
    sockets.helloFrom(ws, att);
    const held = new Set(hello.held);
    // Re-send what the device never got; what it still holds will come back as a result.
    for (const row of ledger.open()) {
      if (held.has(row.request_id)) {
        ledger.markAccepted(row.request_id);
        continue;
      }
      if (wires.send(ws, row.frame)) ledger.markSent(row.request_id);
    }
    log("info", "device hello", {
      agent_id: att.agent_id,
      version: hello.version,
      tools: hello.skills.flatMap((s) => s.tools.map((t) => t.name)).length,
      held: hello.held.length,
    });
    await this.d.registry.report("hello");
    await this.d.checks.schedule();
  }

  /** New tools for the next message's run; commands already in the ledger are not touched. */
  private async onManifestUpdate(att: SocketAttachment, frame: ManifestUpdateFrame): Promise<void> {
    this.d.store.save(manifestUpdated(this.d.store.load(att.agent_id), frame));
    log("info", "device manifest updated", {
      agent_id: att.agent_id,
      tools: frame.skills.flatMap((s) => s.tools.map((t) => t.name)).length,
    });
    await this.d.registry.report("manifest_update");
  }

  private async onResult(ws: WebSocket, att: SocketAttachment, frame: ResultFrame): Promise<void> {
    const { ledger, wires, outcomes, store } = this.d;
    const id = frame.request_id;
    const row = ledger.get(id);
    // Request ids are per hub: another device's request is as unknown here as a made-up one.
    if (!row) return this.reject(ws, att, `unknown request_id '${id}'`, id);
    if (row.state === "queued") return this.reject(ws, att, `request '${id}' was never sent to this device`, id);
    if (row.tool !== frame.tool)
      return this.reject(ws, att, `request '${id}' was for '${row.tool}', not '${frame.tool}'`, id);
    const { type: _t, request_id: _r, ...rest } = frame;
    const outcome = rest as ToolOutcome;
    if (row.state === "done" && row.ended_by_hub && !row.late) {
      // Ended by the hub, so this is late: acknowledged once kept, else the device sends it again.
      if (await outcomes.late(row, outcome)) wires.send(ws, { type: "ack", request_ids: [id] });
      return;
    }
    if (row.state === "done") {
      // A repeat after a lost ack is normal, so it does not count towards closing the socket; it
      // is acknowledged again (the first one is on record), refused and counted.
      wires.send(ws, { type: "ack", request_ids: [id] });
      store.count("duplicate_results");
      wires.send(ws, { type: "rejected", reason: `duplicate result for '${id}'`, request_id: id });
      return;
    }
    // The conversation is told first, the result recorded after: docs/architecture.md#output-gates.
    await outcomes.deliver({ ...row, outcome });
    outcomes.complete(row, outcome);
    // The ack waits for the record to be durable: from then on the device may forget the result.
    wires.send(ws, { type: "ack", request_ids: [id] });
    store.rememberAgentId(att.agent_id);
    store.touch(Date.now());
    log("info", "tool result", {
      agent_id: att.agent_id,
      conversation_id: row.conversation_id,
      request_id: row.request_id,
      tool: row.tool,
      status: frame.status,
      error_type: frame.status === "error" ? frame.error_type : undefined,
      elapsed_ms: frame.elapsed_ms,
    });
  }

  private async onProgress(ws: WebSocket, att: SocketAttachment, frame: ProgressFrame): Promise<void> {
    const row = this.d.ledger.get(frame.request_id);
    if (!row || row.state === "queued")
      return this.reject(ws, att, `progress for unknown request_id '${frame.request_id}'`, frame.request_id);
    if (row.state === "done") return; // late progress for a finished call: harmless, dropped
    try {
      await conversationFor(this.d.env, row.conversation_id).deliverProgress(
        row.tool_call_id,
        row.request_id,
        frame.content,
      );
    } catch (e) {
      log("warn", "progress not delivered", { request_id: row.request_id, error: String(e) });
    }
  }

  /**
   * A device MCP server's question during a call (docs/protocol.md#elicitation): asked for the
   * call the request id names, by its conversation; what the conversation answers at once (a
   * form no person can be asked) goes straight back. A call that has ended asks nobody: the agent
   * has answered the server `cancel` itself.
   */
  private async onElicitation(ws: WebSocket, att: SocketAttachment, frame: ElicitationFrame): Promise<void> {
    const row = this.d.ledger.get(frame.request_id);
    if (!row || row.state === "queued")
      return this.reject(ws, att, `elicitation for unknown request_id '${frame.request_id}'`, frame.request_id);
    if (row.state === "done") return;
    const { request_id, elicitation_id, server, message, requested_schema } = frame;
    try {
      const now = await conversationFor(this.d.env, row.conversation_id).askFromDevice(row.tool_call_id, {
        agent_id: att.agent_id,
        request_id,
        elicitation_id,
        server,
        message,
        requested_schema,
        expires_at: row.deadline,
      });
      if (now) this.d.wires.send(ws, elicitationAnswerFrame(frame, now));
    } catch (e) {
      // Not asked: the agent asks again after its next reconnect, or the call's end cancels it.
      log("warn", "device question not delivered", { request_id, elicitation_id, error: String(e) });
    }
  }
}
