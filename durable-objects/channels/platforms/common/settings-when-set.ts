import type { Result } from "@edgeloop/protocol/result";
import type { z } from "zod";
import { parseVars } from "../../../../runtime/vars.js";

/**
 * A platform's settings read from the deployment's vars: off (null) while none of its required
 * vars is set, so a deployment without that chat app needs nothing; once any is set, all of them
 * must be, and a missing or bad one is an error naming it (not a channel silently left off).
 * Required means the schema has no default for it: the API base URLs and versions have one.
 */
export function settingsWhenSet<S extends z.ZodObject>(schema: S): (env: object) => Result<z.output<S> | null> {
  const required = Object.entries(schema.shape)
    .filter(([, field]) => !(field as z.ZodType).safeParse(undefined).success)
    .map(([name]) => name);
  return (env) => {
    const vars = env as Record<string, unknown>;
    if (!required.some((name) => typeof vars[name] === "string" && vars[name] !== "")) return { ok: true, value: null };
    return parseVars(schema, env);
  };
}
