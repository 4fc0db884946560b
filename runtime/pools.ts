import { z } from "zod";
import { oncePerEnv } from "./vars.js";

/** `kitchen:pi-1|pi-2,lab:pi-3` → Map(pool → agent ids). */
export const Pools = z
  .string()
  .default("")
  .transform((raw, ctx) => {
    const pools = new Map<string, string[]>();
    for (const entry of raw
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean)) {
      const m = entry.match(/^([A-Za-z0-9._-]{1,64}):([A-Za-z0-9._:|-]+)$/);
      if (!m) {
        ctx.addIssue({ code: "custom", message: `entry '${entry.slice(0, 30)}' is not pool:agent|agent` });
        return z.NEVER;
      }
      pools.set(m[1]!, m[2]!.split("|").filter(Boolean));
    }
    return pools;
  });

/**
 * POOLS alone, parsed once per isolate, for an object that names a pool itself (a sub-task handed
 * to a pool: conversation/builtins/task.ts). A bad POOLS is refused at the front door; here it is none.
 */
export const poolsOf = oncePerEnv((env: { POOLS?: string }): ReadonlyMap<string, readonly string[]> => {
  const parsed = Pools.safeParse(env.POOLS || undefined);
  return parsed.success ? parsed.data : new Map();
});
