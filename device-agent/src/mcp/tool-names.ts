/**
 * The names MCP tools are advertised under. Pure.
 *
 * An MCP tool keeps its own name when it fits our tool-name shape (1-64 of [a-zA-Z0-9_-]) and no
 * other tool of the device has it; characters outside the shape become `_`. On a clash the later
 * tool (bin tools come first, then the MCP skills in load order) is prefixed with its skill:
 * `{skill}__{tool}`. A name that still clashes is not advertised. Names given once are kept while
 * the agent runs, so a server that lists its tools again (list_changed, a restart) does not move
 * a tool to another name under a conversation that is using it.
 */
const SHAPE = /^[a-zA-Z0-9_-]{1,64}$/;
const MAX = 64;

export function toolNameShape(name: string): string {
  const cleaned = name.replace(/[^a-zA-Z0-9_-]/g, "_").slice(0, MAX);
  return cleaned === "" ? "_" : cleaned;
}

export type NameKey = { skill: string; tool: string };

export class McpToolNames {
  /** `${skill}\n${tool}` → advertised name */
  private readonly given = new Map<string, string>();

  /**
   * Names for one listing of all MCP tools, in order, against the names other tools hold.
   * null for a tool that cannot get a free name.
   */
  assign(keys: NameKey[], taken: ReadonlySet<string>): (string | null)[] {
    const used = new Set(taken);
    const out: (string | null)[] = new Array(keys.length).fill(null);
    // First the names given before, so they stay put; then the new ones.
    keys.forEach((key, i) => {
      const before = this.given.get(keyOf(key));
      if (before !== undefined && !used.has(before)) {
        out[i] = before;
        used.add(before);
      }
    });
    keys.forEach((key, i) => {
      if (out[i] !== null) return;
      const plain = toolNameShape(key.tool);
      const prefixed = toolNameShape(`${key.skill}__${key.tool}`);
      const name = !used.has(plain) ? plain : !used.has(prefixed) ? prefixed : null;
      if (name === null) return;
      out[i] = name;
      used.add(name);
      this.given.set(keyOf(key), name);
    });
    return out;
  }
}

const keyOf = (k: NameKey) => `${k.skill}\n${k.tool}`;

export const isToolNameShape = (name: string) => SHAPE.test(name);
