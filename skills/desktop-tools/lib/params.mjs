// @ts-check
// Reads a tool call's parameters: the JSON object on stdin (what the agent sends), else the
// `--name value` argv pairs (handy when running a binary by hand). The agent validated types
// already; the checks here make the binaries safe to run directly too.
import { readFileSync } from "node:fs";
import { usageError } from "./exit.mjs";

/**
 * @typedef {"string" | "integer" | "number" | "boolean" | "array" | "object"} ParamType
 * @typedef {{ type: ParamType, required?: boolean, default?: unknown, minimum?: number, maximum?: number }} ParamSpec
 */

/**
 * @param {Record<string, ParamSpec>} spec
 * @param {{ stdinText?: string, argv?: string[] }} [source] for tests of the helper itself
 * @returns {Record<string, any>}
 */
export function readParams(spec, source = {}) {
  const stdinText = source.stdinText ?? readStdin();
  const raw = stdinText.trim() ? parseJsonObject(stdinText) : parseArgv(source.argv ?? process.argv.slice(2), spec);
  /** @type {Record<string, any>} */
  const params = {};
  for (const [name, s] of Object.entries(spec)) {
    let value = raw[name];
    if (value === undefined || value === null) {
      if (s.required) throw usageError(`missing required parameter "${name}"`);
      if (s.default === undefined) continue;
      value = s.default;
    }
    params[name] = checkType(name, value, s);
  }
  return params;
}

function readStdin() {
  // An interactive terminal never sends EOF on its own; by hand, use argv instead.
  if (process.stdin.isTTY) return "";
  try {
    return readFileSync(0, "utf8");
  } catch {
    return "";
  }
}

/** @param {string} text */
function parseJsonObject(text) {
  let value;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw usageError(`parameters on stdin are not valid JSON: ${err instanceof Error ? err.message : err}`);
  }
  if (!value || typeof value !== "object" || Array.isArray(value))
    throw usageError("parameters on stdin must be a JSON object");
  return value;
}

/**
 * @param {string[]} argv
 * @param {Record<string, ParamSpec>} spec
 */
function parseArgv(argv, spec) {
  /** @type {Record<string, unknown>} */
  const out = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? "";
    if (!arg.startsWith("--")) throw usageError(`unexpected argument "${arg}" (use --name value)`);
    const name = arg.slice(2);
    const s = spec[name];
    if (!s) throw usageError(`unknown parameter "--${name}"`);
    const next = argv[i + 1];
    // A bare boolean flag (`--staged`) means true.
    if (s.type === "boolean" && (next === undefined || next.startsWith("--"))) {
      out[name] = true;
      continue;
    }
    if (next === undefined) throw usageError(`parameter "--${name}" needs a value`);
    i++;
    out[name] = fromArgText(name, next, s.type);
  }
  return out;
}

/**
 * @param {string} name @param {string} text @param {ParamType} type
 */
function fromArgText(name, text, type) {
  switch (type) {
    case "integer":
    case "number":
      return text.trim() === "" ? text : Number(text);
    case "boolean":
      return text === "true" ? true : text === "false" ? false : text;
    case "array":
    case "object":
      try {
        return JSON.parse(text);
      } catch {
        throw usageError(`parameter "--${name}" must be JSON text`);
      }
    default:
      return text;
  }
}

/**
 * @param {string} name @param {unknown} value @param {ParamSpec} s
 */
function checkType(name, value, s) {
  const ok =
    s.type === "string"
      ? typeof value === "string"
      : s.type === "integer"
        ? Number.isInteger(value)
        : s.type === "number"
          ? typeof value === "number" && Number.isFinite(value)
          : s.type === "boolean"
            ? typeof value === "boolean"
            : s.type === "array"
              ? Array.isArray(value)
              : value !== null && typeof value === "object" && !Array.isArray(value);
  if (!ok)
    throw usageError(
      `parameter "${name}" must be ${s.type === "integer" || s.type === "array" || s.type === "object" ? "an" : "a"} ${s.type}`,
    );
  if (typeof value === "number") {
    if (s.minimum !== undefined && value < s.minimum) throw usageError(`parameter "${name}" must be >= ${s.minimum}`);
    if (s.maximum !== undefined && value > s.maximum) throw usageError(`parameter "${name}" must be <= ${s.maximum}`);
  }
  return value;
}
