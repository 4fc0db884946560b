import { AuditQueryParams } from "@edgeloop/protocol";
import { Hono } from "hono";
import { hubFor, registryOf } from "../../durable-objects/addresses.js";
import type { AuditEntry } from "../../durable-objects/device-hub/storage/audit-log.js";
import { invalidQuery } from "../../runtime/problem.js";
import type { AppEnv } from "../env.js";
import { authorizeAdmin } from "../middleware/authorize.js";

export const audit = new Hono<AppEnv>();

audit.use("*", authorizeAdmin);

/**
 * GET /v1/audit?agent_id=&tool=&since=&limit= — tool invocations, newest first. Rows live in each
 * device's hub; without `agent_id` the query fans out over every device the registry knows.
 */
audit.get("/", async (c) => {
  const parsed = AuditQueryParams.safeParse(c.req.query());
  if (!parsed.success) return invalidQuery(parsed.error);
  const { agent_id, limit, ...filter } = parsed.data;
  const query = { ...filter, limit };
  const agents = agent_id ? [agent_id] : (await registryOf(c.env).list()).map((d) => d.agent_id);
  const rows: AuditEntry[] = (await Promise.all(agents.map((id) => hubFor(c.env, id).queryAudit(query)))).flat();
  rows.sort((a, b) => (a.timestamp < b.timestamp ? 1 : a.timestamp > b.timestamp ? -1 : 0));
  return c.json({ entries: rows.slice(0, limit), devices: agents.length });
});
