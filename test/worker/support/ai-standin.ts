import type { AiRunner } from "../../../durable-objects/conversation/llm/index.js";

/**
 * A stand-in for the Workers AI binding (`env.AI`), since the real one needs a Cloudflare
 * login: `run` records each call and answers with the next scripted answer, in the shapes the
 * binding documents. An answer is an object or string (returned as is), an SSE stream given as
 * the text pieces it arrives in, or an Error (thrown, as the binding throws).
 */
export type StandInAnswer = unknown | { sse: string[]; stallAfter?: number } | Error;
export type StandInCall = {
  model: string;
  inputs: Record<string, unknown>;
  options: Record<string, unknown> | undefined;
};

export function aiStandIn(answers: StandInAnswer[]): AiRunner & { calls: StandInCall[] } {
  const calls: StandInCall[] = [];
  return {
    calls,
    async run(model, inputs, options) {
      calls.push({ model, inputs: structuredClone(inputs), options: options && { ...options, signal: undefined } });
      const answer = answers[Math.min(calls.length - 1, answers.length - 1)];
      if (answer instanceof Error) throw answer;
      if (isSse(answer)) return sseStream(answer.sse, answer.stallAfter);
      return structuredClone(answer);
    },
  };
}

function isSse(answer: unknown): answer is { sse: string[]; stallAfter?: number } {
  return typeof answer === "object" && answer !== null && Array.isArray((answer as { sse?: unknown }).sse);
}

/** The bytes of an SSE stream, piece by piece; with `stallAfter`, it goes silent after that many. */
function sseStream(pieces: string[], stallAfter?: number): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let i = 0;
  return new ReadableStream({
    async pull(controller) {
      if (stallAfter !== undefined && i >= stallAfter) return new Promise(() => {});
      if (i >= pieces.length) return controller.close();
      controller.enqueue(encoder.encode(pieces[i++]));
    },
  });
}

/** `data: <json>\n\n` for each event, then `data: [DONE]`, split at odd places like a network would. */
export function sseOf(events: unknown[]): string[] {
  const text = `${events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join("")}data: [DONE]\n\n`;
  const pieces: string[] = [];
  for (let i = 0; i < text.length; i += 37) pieces.push(text.slice(i, i + 37));
  return pieces;
}
