import { timingSafeEqual } from "node:crypto";

/**
 * Import for its effect, in a unit test that loads worker/middleware/safe-equal.ts: Node's crypto.subtle has no
 * timingSafeEqual (workerd's extension), so this gives it one made of Node's own timingSafeEqual, which compares
 * the same way (constant time; different lengths throw, as in workerd).
 */
const view = (b: ArrayBuffer | ArrayBufferView) =>
  ArrayBuffer.isView(b) ? new Uint8Array(b.buffer, b.byteOffset, b.byteLength) : new Uint8Array(b);

if (!("timingSafeEqual" in crypto.subtle)) {
  Object.defineProperty(crypto.subtle, "timingSafeEqual", {
    value: (a: ArrayBuffer | ArrayBufferView, b: ArrayBuffer | ArrayBufferView) => timingSafeEqual(view(a), view(b)),
  });
}
