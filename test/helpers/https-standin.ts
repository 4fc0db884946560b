/**
 * An https server on loopback, for what must be https and cannot run here: an app's host serving
 * its client ID metadata document. Its certificate is made for this run by openssl, signed by a
 * certificate authority also made for this run; the worker under `wrangler dev` trusts that
 * authority when started with `NODE_EXTRA_CA_CERTS` naming `caFile` (wrangler's runtime adds
 * those certificates to the ones its outbound fetch trusts). Nothing is trusted beyond the run.
 */
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { systemTool } from "./system-tools.js";
import { tempDir } from "./temp-dir.js";

export type HttpsStandin = { url: string; caFile: string; stop: () => Promise<void> };

/** A CA and a certificate for 127.0.0.1 signed by it, as PEM files in a new directory. */
function makeCertificates(): { caFile: string; key: Buffer; cert: Buffer } {
  const openssl = systemTool("openssl");
  const dir = tempDir("edgeloop-tls-");
  const at = (name: string) => join(dir, name);
  const run = (args: string[]) => execFileSync(openssl, args, { stdio: "pipe" });
  const ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];
  run([
    "req",
    "-x509",
    ...ec,
    "-keyout",
    at("ca.key"),
    "-out",
    at("ca.pem"),
    "-days",
    "2",
    "-subj",
    "/CN=edgeloop test CA",
  ]);
  run(["req", ...ec, "-keyout", at("leaf.key"), "-out", at("leaf.csr"), "-subj", "/CN=127.0.0.1"]);
  writeFileSync(
    at("leaf.ext"),
    "subjectAltName=IP:127.0.0.1\nbasicConstraints=critical,CA:FALSE\nextendedKeyUsage=serverAuth\n",
  );
  run([
    "x509",
    "-req",
    "-in",
    at("leaf.csr"),
    "-CA",
    at("ca.pem"),
    "-CAkey",
    at("ca.key"),
    "-CAcreateserial",
    "-days",
    "1",
    "-extfile",
    at("leaf.ext"),
    "-out",
    at("leaf.pem"),
  ]);
  return { caFile: at("ca.pem"), key: readFileSync(at("leaf.key")), cert: readFileSync(at("leaf.pem")) };
}

export async function startHttpsStandin(
  handle: (req: IncomingMessage, res: ServerResponse, base: string) => void,
): Promise<HttpsStandin> {
  const { caFile, key, cert } = makeCertificates();
  let base = "";
  const server: Server = createServer({ key, cert }, (req, res) => handle(req, res, base));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: base,
    caFile,
    stop: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
