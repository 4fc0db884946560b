// An in-memory BuiltinContext: a test double of the context interface the shell provides (kv,
// device registry, conversation directory). The built-ins under test are the real ones.
import type {
  BuiltinContext,
  ConversationSummary,
  DeviceSummary,
} from "../../../durable-objects/conversation/builtins/types.js";

export type FakeDevice = DeviceSummary & {
  capabilities: string[];
  skills: { name: string; workflow?: string; tools: { name: string; description: string }[] }[];
};

export type FakeWorld = {
  ctx: BuiltinContext;
  kv: Map<string, string>;
  devices: Map<string, FakeDevice>;
  conversations: Map<string, ConversationSummary>;
  known: string[];
  posts: { conversation_id: string | null; agent_id: string; text: string }[];
  subtasks: { text: string; agent_id: string; pool?: string }[];
  /** when set, post() answers with this error */
  postError: string | null;
};

export const NOW = Date.UTC(2025, 0, 2, 3, 4, 5, 678);

export function device(agent_id: string, overrides: Partial<FakeDevice> = {}): FakeDevice {
  return {
    agent_id,
    online: true,
    last_seen: NOW - 1000,
    version: "1.2.3",
    tools: ["bash", "read"],
    capabilities: ["shell", "file_read"],
    skills: [
      {
        name: "desktop-tools",
        workflow: "Read before you write. Use bash for builds.",
        tools: [
          { name: "bash", description: "run a command" },
          { name: "read", description: "read a file" },
        ],
      },
      { name: "pi-tools", tools: [{ name: "gpio_read", description: "read a pin" }] },
    ],
    ...overrides,
  };
}

export function fakeWorld(opts: { conversation_id?: string; agent_id?: string } = {}): FakeWorld {
  const conversation_id = opts.conversation_id ?? "conv-self";
  const agent_id = opts.agent_id ?? "pi-1";
  let nextId = 1;
  const world: FakeWorld = {
    kv: new Map(),
    devices: new Map([[agent_id, device(agent_id)]]),
    conversations: new Map([
      [
        conversation_id,
        { conversation_id, agent_id, status: "running", messages: [{ role: "user", content: "hello" }] },
      ],
    ]),
    known: [],
    posts: [],
    subtasks: [],
    postError: null,
    ctx: undefined as unknown as BuiltinContext,
  };
  world.ctx = {
    conversation_id,
    agent_id,
    tool_call_id: "call-1",
    request_id: "req-1",
    now: () => NOW,
    kv: {
      // Stored as JSON text, as the shell's SQLite does, so nothing relies on object identity.
      get: <T>(key: string) => {
        const raw = world.kv.get(key);
        return raw === undefined ? null : (JSON.parse(raw) as T);
      },
      put: (key, value) => void world.kv.set(key, JSON.stringify(value)),
    },
    devices: {
      list: async () =>
        [...world.devices.values()].map(({ agent_id, online, last_seen, version, tools }) => ({
          agent_id,
          online,
          last_seen,
          version,
          tools,
        })),
      get: async (id) => {
        const d = world.devices.get(id);
        // The shell's hub answers for any id; an unknown device is an empty, offline one.
        return d
          ? { ...d }
          : { agent_id: id, online: false, last_seen: null, version: null, capabilities: [], skills: [] };
      },
    },
    conversations: {
      known: () => [...world.known],
      remember: (id) => {
        if (!world.known.includes(id)) world.known.push(id);
      },
      view: async (id) => world.conversations.get(id) ?? null,
      post: async (id, agentId, text) => {
        world.posts.push({ conversation_id: id, agent_id: agentId, text });
        if (world.postError !== null) return { error: world.postError };
        const target = id ?? `conv-new-${nextId++}`;
        const existing = world.conversations.get(target);
        const messages = [...(existing?.messages ?? []), { role: "user", content: text }];
        world.conversations.set(target, { conversation_id: target, agent_id: agentId, status: "running", messages });
        return { conversation_id: target, message_id: `msg-${nextId++}` };
      },
    },
    startSubtask: async (text, agentId, pool) => {
      world.subtasks.push({ text, agent_id: agentId, ...(pool ? { pool } : {}) });
      const id = `conv-sub-${world.subtasks.length}`;
      world.conversations.set(id, {
        conversation_id: id,
        agent_id: agentId,
        status: "running",
        messages: [{ role: "user", content: text }],
      });
      return { conversation_id: id };
    },
  };
  return world;
}
