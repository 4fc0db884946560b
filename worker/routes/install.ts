import { Hono } from "hono";
import type { AppEnv } from "../env.js";
import { installScript } from "../install/install-script.js";

/**
 * `GET /install`: the device's one-line install (`curl -fsSL <worker>/install | sudo sh`), with this
 * worker's URL filled in as the request reached it. Public, like the agent tarball it installs: it
 * holds no secret, and a device gets its token only through the pairing an admin approves.
 */
export const install = new Hono<AppEnv>();

install.get("/", (c) =>
  c.body(installScript(new URL(c.req.url).origin), 200, {
    "content-type": "text/plain; charset=utf-8",
    "cache-control": "no-cache",
  }),
);
