/**
 * The least a Chat Completions request for the same conversation must carry: every message with
 * only the fields the model reads (role, content, tool calls, tool call id), the same tools with
 * only name, description and parameters, the model and `stream`, as compact JSON. What a request
 * carries beyond that is the client's own overhead. (Chat Completions keeps no state between
 * calls, so the whole history is in every request; that part is the protocol's, not the client's.)
 */
type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

function minimalMessage(m: Json): Json {
  const out: Json = { role: m.role, content: m.content ?? null };
  if (Array.isArray(m.tool_calls) && m.tool_calls.length > 0)
    out.tool_calls = m.tool_calls.filter(isObject).map((c) => {
      const f = isObject(c.function) ? c.function : {};
      return { id: c.id, type: "function", function: { name: f.name, arguments: f.arguments } };
    });
  if (typeof m.tool_call_id === "string") out.tool_call_id = m.tool_call_id;
  return out;
}

function minimalTool(t: Json): Json {
  const f = isObject(t.function) ? t.function : {};
  return { type: "function", function: { name: f.name, description: f.description, parameters: f.parameters } };
}

export function minimalRequestBytes(body: unknown): number {
  const b = isObject(body) ? body : {};
  const messages = Array.isArray(b.messages) ? b.messages.filter(isObject).map(minimalMessage) : [];
  const tools = Array.isArray(b.tools) ? b.tools.filter(isObject).map(minimalTool) : [];
  const minimal: Json = { model: b.model, messages, stream: true };
  if (tools.length > 0) minimal.tools = tools;
  return Buffer.byteLength(JSON.stringify(minimal));
}
