import { randomUUID } from "node:crypto";
import type { Logger } from "@edgeloop/edge-client/log";
import {
  type ElicitationAnswerFrame,
  type ElicitationFrame,
  type ElicitationReply,
  replyOf,
} from "@edgeloop/protocol/elicitation-frames";

type Open = { frame: ElicitationFrame; resolve: (reply: ElicitationReply) => void };

/**
 * Device MCP servers' questions for a person (`elicitation/create`, form mode), asked through the
 * hub (docs/protocol.md#elicitation): each goes out as an `elicitation` frame tied to its tool
 * call's request id and waits for the hub's `elicitation_answer`. The server's request is held
 * here, so a question outlives a reconnect: it is sent again after each one (same id, so the
 * conversation asks the person once). It ends with its call: a call that ends first (its
 * timeout, a cancel, its result) or a server that withdraws the request gets `cancel`, as the
 * spec's "dismissed without an explicit choice".
 */
export class DeviceQuestions {
  private readonly open = new Map<string, Open>();

  constructor(
    /** best effort: false while offline (the question goes out again after the reconnect) */
    private readonly send: (frame: ElicitationFrame) => boolean,
    private readonly log: Logger,
  ) {}

  /** Whether the call has a question waiting (one at a time per call). */
  asking(requestId: string): boolean {
    for (const q of this.open.values()) if (q.frame.request_id === requestId) return true;
    return false;
  }

  /** Asks for call `requestId` and waits for the answer, or until `signal` aborts (then `cancel`). */
  ask(
    requestId: string,
    server: string,
    params: { message: string; requestedSchema: Record<string, unknown> },
    signal: AbortSignal,
  ): Promise<ElicitationReply> {
    if (this.asking(requestId)) {
      this.log.warn("mcp server question while another is open for the call", { server, request_id: requestId });
      return Promise.resolve({ action: "cancel" });
    }
    if (signal.aborted) return Promise.resolve({ action: "cancel" });
    const frame: ElicitationFrame = {
      type: "elicitation",
      request_id: requestId,
      elicitation_id: randomUUID(),
      server,
      message: params.message,
      requested_schema: params.requestedSchema,
    };
    return new Promise<ElicitationReply>((resolve) => {
      const done = (reply: ElicitationReply) => {
        signal.removeEventListener("abort", onAbort);
        this.open.delete(frame.elicitation_id);
        this.log.info("mcp server question answered", {
          server,
          request_id: requestId,
          elicitation_id: frame.elicitation_id,
          action: reply.action,
        });
        resolve(reply);
      };
      const onAbort = () => done({ action: "cancel" });
      signal.addEventListener("abort", onAbort, { once: true });
      this.open.set(frame.elicitation_id, { frame, resolve: done });
      const sent = this.send(frame);
      this.log.info("mcp server question asked", {
        server,
        request_id: requestId,
        elicitation_id: frame.elicitation_id,
        sent,
      });
    });
  }

  /** The hub's answer; one for a question that has ended meanwhile is dropped. */
  onAnswer(frame: ElicitationAnswerFrame): void {
    const open = this.open.get(frame.elicitation_id);
    if (!open || open.frame.request_id !== frame.request_id) {
      this.log.debug("answer for a question that is not open", { elicitation_id: frame.elicitation_id });
      return;
    }
    open.resolve(replyOf(frame));
  }

  /** After a (re)connect: every open question again, for a hub that restarted or never got it. */
  resend(): void {
    for (const q of this.open.values()) this.send(q.frame);
  }
}
