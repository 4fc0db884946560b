import { readWholeHistory } from "@edgeloop/protocol/history-page";
import { API_TOKEN } from "./local-worker.js";

export type WaitReplyBody = {
  conversation_id: string;
  message_id: string;
  status: string;
  reply: string | null;
  tool_calls: { id: string; name: string; arguments: unknown; status: string; error_type?: string }[];
  iterations: number;
  stop_reason?: string | null;
};

export async function sendMessage(
  url: string,
  body: Record<string, unknown>,
  wait?: number,
): Promise<{ status: number; body: WaitReplyBody }> {
  const res = await fetch(`${url}/v1/messages${wait !== undefined ? `?wait=${wait}` : ""}`, {
    method: "POST",
    headers: { authorization: `Bearer ${API_TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as WaitReplyBody };
}

export async function getConversation(
  url: string,
  id: string,
): Promise<{
  status: string;
  messages: {
    role: string;
    content: string | null;
    tool_call_id?: string;
    tool_calls?: { id: string; function: { name: string; arguments: string } }[];
    images?: { sha256: string; url: string; width?: number; height?: number; bytes: number }[];
  }[];
}> {
  // The whole history, however many pages it takes.
  const view = await readWholeHistory(async (query) => {
    const res = await fetch(`${url}/v1/conversations/${id}${query}`, {
      headers: { authorization: `Bearer ${API_TOKEN}` },
    });
    if (res.status !== 200) throw new Error(`GET conversation ${res.status}: ${await res.text()}`);
    return (await res.json()) as { messages: never[]; messages_total: number };
  });
  return view as never;
}
