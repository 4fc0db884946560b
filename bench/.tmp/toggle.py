import sys
on = sys.argv[1] == "on"
edits = [
 ("durable-objects/conversation/core/advance.ts",
  "  const state: LoopState = structuredClone(prev);\n",
  "  // Messages are append-only (the loop only ever pushes), so the history is shared with `prev`\n  // instead of deep-copied: cloning it made every step O(history) (bench/profile-cpu.ts).\n  const { messages, ...rest } = prev;\n  const state: LoopState = { ...structuredClone(rest), messages: [...messages] };\n"),
 ("durable-objects/conversation/conversation-do.ts",
  "    const cfg = readConfig(this.env);\n",
  "    // Vars cannot change while the object lives: parse them once, not on every model call.\n    const cfg = (this.workerConfig ??= readConfig(this.env));\n"),
 ("durable-objects/device-hub/hub-config.ts",
  "export function hubConfig(env: Env): HubConfig {\n  let cfg = cache.get(env);",
  "export function hubConfig(env: Env): HubConfig {\n  let cfg = on_marker"),
]
for path, before, after in edits[:2]:
    s = open(path).read()
    a, b = (before, after) if on else (after, before)
    if b in s: continue
    assert s.count(a) == 1, (path, on)
    open(path, "w").write(s.replace(a, b))
# hub-config: toggle the cache lookup only
p = "durable-objects/device-hub/hub-config.ts"
s = open(p).read()
x, y = "  let cfg = cache.get(env);", "  let cfg = undefined as HubConfig | undefined; // bench: cache off"
a, b = (y, x) if on else (x, y)
if b not in s:
    assert s.count(a) == 1
    open(p, "w").write(s.replace(a, b))
print("changes", "on" if on else "off")
