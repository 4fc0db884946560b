// @ts-check
// File reads shared by the file tools, with errors already mapped to exit codes.
import { closeSync, openSync, readSync, statSync } from "node:fs";
import { failedError, notFoundError, usageError } from "./exit.mjs";

/** How much of a file to sniff for NUL bytes when deciding whether it is binary (as git does). */
const SNIFF_BYTES = 8192;

/**
 * stat a resolved path; missing → exit 66.
 * @param {string} real @param {string} display
 */
export function statExisting(real, display) {
  try {
    return statSync(real);
  } catch (err) {
    throw mapFsError(err, display);
  }
}

/**
 * @param {string} real @param {string} display
 */
export function requireFile(real, display) {
  const st = statExisting(real, display);
  if (st.isDirectory()) throw usageError(`"${display}" is a directory, not a file`);
  return st;
}

/** @param {string} real */
export function looksBinary(real) {
  const fd = openSync(real, "r");
  try {
    const buf = Buffer.alloc(SNIFF_BYTES);
    const n = readSync(fd, buf, 0, SNIFF_BYTES, 0);
    return buf.subarray(0, n).includes(0);
  } finally {
    closeSync(fd);
  }
}

/**
 * @param {unknown} err @param {string} display
 */
export function mapFsError(err, display) {
  const code = /** @type {{ code?: string }} */ (err)?.code;
  if (code === "ENOENT" || code === "ENOTDIR") return notFoundError(`file not found: ${display}`);
  if (code === "EACCES" || code === "EPERM")
    return failedError(`cannot access ${display}: permission denied by the operating system`);
  if (code === "EISDIR") return usageError(`"${display}" is a directory, not a file`);
  return failedError(`${display}: ${err instanceof Error ? err.message : String(err)}`);
}
