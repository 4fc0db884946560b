import { connect, createServer, type Server, type Socket } from "node:net";
import { freePort } from "./free-port.js";

/**
 * A TCP relay between a device and the worker that a test can cut and restore, as a network
 * outage would: cutting destroys the connections through it and refuses new ones.
 */
export type CuttableLink = { url: string; cut: () => void; restore: () => void; close: () => Promise<void> };

export async function cuttableLink(targetPort: number): Promise<CuttableLink> {
  const port = await freePort();
  const open = new Set<Socket>();
  let up = true;
  const server: Server = createServer((inbound) => {
    if (!up) return inbound.destroy();
    const outbound = connect(targetPort, "127.0.0.1");
    for (const s of [inbound, outbound]) {
      open.add(s);
      s.on("close", () => open.delete(s));
      s.on("error", () => undefined);
    }
    inbound.pipe(outbound).pipe(inbound);
    inbound.on("close", () => outbound.destroy());
    outbound.on("close", () => inbound.destroy());
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  const cut = () => {
    up = false;
    for (const s of open) s.destroy();
  };
  return {
    url: `http://127.0.0.1:${port}`,
    cut,
    restore: () => {
      up = true;
    },
    close: () => {
      cut();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
