import type { Result } from "@edgeloop/protocol/result";
import { z } from "zod";

/**
 * Deployment vars as wrangler gives them (wrangler.toml, .dev.vars, secrets, `--var`): strings, or
 * absent. Each part of the deployment declares the vars it reads with a zod shape and parses them
 * with `parseVars`, so a bad value is refused with its name.
 */
export type VarsOf<S extends z.ZodRawShape> = { [K in keyof S]?: string };

/** An integer var within bounds. */
export const intVar = (min: number, max: number) => z.coerce.number().int().min(min).max(max);

/** A var holding JSON of the given shape. */
export const jsonVar = <T extends z.ZodTypeAny>(schema: T) =>
  z.string().transform((raw, ctx) => {
    try {
      return schema.parse(JSON.parse(raw)) as z.infer<T>;
    } catch (e) {
      ctx.addIssue({
        code: "custom",
        message: `not valid JSON of the expected shape: ${(e as Error).message.slice(0, 200)}`,
      });
      return z.NEVER;
    }
  });

/**
 * A JSON var's list of named entries (tools, servers), refusing a name given twice: the later one
 * would silently shadow the first. The error names the entry's index and the noun.
 */
export const uniqueNames = <T extends z.ZodType<{ name: string }>>(entry: T, noun: string) =>
  z.array(entry).superRefine((entries, ctx) => {
    const seen = new Set<string>();
    entries.forEach((e, i) => {
      if (seen.has(e.name))
        ctx.addIssue({ code: "custom", path: [i, "name"], message: `duplicate ${noun} "${e.name}"` });
      seen.add(e.name);
    });
  });

/** Parse the vars `schema` names from `env`; an empty string counts as unset. */
export function parseVars<S extends z.ZodObject>(schema: S, env: object): Result<z.output<S>> {
  const raw = Object.fromEntries(Object.entries(env).filter(([, v]) => typeof v === "string" && v !== ""));
  const parsed = schema.safeParse(raw);
  if (parsed.success) return { ok: true, value: parsed.data };
  const issue = parsed.error.issues[0]!;
  return { ok: false, error: `${issue.path.join(".")}: ${issue.message}` };
}

/**
 * `parse` run once per env object: vars cannot change while an isolate lives, and parsing them on
 * every frame or step was a visible part of a step's CPU.
 */
export function oncePerEnv<E extends object, T>(parse: (env: E) => T): (env: E) => T {
  const cache = new WeakMap<E, T>();
  return (env) => {
    let value = cache.get(env);
    if (value === undefined) {
      value = parse(env);
      cache.set(env, value);
    }
    return value;
  };
}
