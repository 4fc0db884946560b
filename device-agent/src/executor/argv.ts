import type { ParametersSchema } from "@edgeloop/protocol";

/**
 * docs/skills.md: every top-level parameter as `--name value`, schema order first (then any extra
 * parameters in the order given). Strings as they are, numbers and booleans as text, arrays and
 * objects as JSON. null/undefined are left out: "not given" is not the string "null".
 */
export function parametersToArgv(parameters: Record<string, unknown>, schema: ParametersSchema): string[] {
  const names = [...Object.keys(schema.properties), ...Object.keys(parameters)];
  const argv: string[] = [];
  for (const name of new Set(names)) {
    const value = parameters[name];
    if (value === undefined || value === null) continue;
    argv.push(
      `--${name}`,
      typeof value === "string" ? value : typeof value === "object" ? JSON.stringify(value) : String(value),
    );
  }
  return argv;
}

/** The hub validates parameters, but a missing required one must not reach a binary as "absent". */
export function missingRequired(parameters: Record<string, unknown>, schema: ParametersSchema): string[] {
  return schema.required.filter((name) => parameters[name] === undefined || parameters[name] === null);
}
