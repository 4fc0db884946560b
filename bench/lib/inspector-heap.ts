import WebSocket from "ws";

/**
 * The worker's JavaScript heap, read over the DevTools inspector `wrangler dev` opens
 * (`--inspector-port`): the isolate workerd runs the worker and its Durable Objects in. A forced
 * garbage collection first, so the figure is what is still referenced, not what awaits collection.
 * workerd handles `HeapProfiler.collectGarbage` when the isolate next runs, so `poke` (a request
 * to the worker) makes it run.
 */
export class InspectorHeap {
  private nextId = 0;

  private constructor(private readonly ws: WebSocket) {}

  static async connect(port: number): Promise<InspectorHeap> {
    const ws = new WebSocket(`ws://127.0.0.1:${port}/ws`);
    await new Promise<void>((resolve, reject) => {
      ws.once("open", () => resolve());
      ws.once("error", reject);
    });
    return new InspectorHeap(ws);
  }

  /** Used heap after a full collection, in bytes. */
  async usedAfterGc(poke: () => Promise<unknown>): Promise<number> {
    const collected = this.call("HeapProfiler.collectGarbage");
    // Poked until the collection has run (one poke usually does).
    let done = false;
    const finished = () => {
      done = true;
    };
    collected.then(finished, finished);
    for (let i = 0; i < 50 && !done; i++) {
      // A poke that fails (the isolate busy collecting) is simply made again.
      await poke().catch(() => undefined);
      await new Promise((r) => setTimeout(r, 100));
    }
    await collected;
    const usage = (await this.call("Runtime.getHeapUsage")) as { usedSize: number };
    return usage.usedSize;
  }

  close(): void {
    this.ws.close();
  }

  private call(method: string): Promise<unknown> {
    const id = ++this.nextId;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.ws.off("message", onMessage);
        reject(new Error(`the inspector did not answer ${method} within 60 s`));
      }, 60_000);
      const onMessage = (data: WebSocket.RawData) => {
        const m = JSON.parse(data.toString()) as { id?: number; result?: unknown; error?: { message: string } };
        if (m.id !== id) return;
        clearTimeout(timer);
        this.ws.off("message", onMessage);
        if (m.error) reject(new Error(`${method}: ${m.error.message}`));
        else resolve(m.result);
      };
      this.ws.on("message", onMessage);
      this.ws.send(JSON.stringify({ id, method, params: {} }));
    });
  }
}
