// workerd's crypto.subtle has timingSafeEqual (a Cloudflare extension) that the DOM types of the Node type check
// (tsconfig.json) lack; worker/middleware/safe-equal.ts calls it. tsconfig.worker.json has the real declaration
// and does not include this folder. test/helpers/workers-crypto.ts supplies the function at run time.
interface SubtleCrypto {
  timingSafeEqual(a: ArrayBuffer | ArrayBufferView, b: ArrayBuffer | ArrayBufferView): boolean;
}
