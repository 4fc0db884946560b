import { type Context, Hono } from "hono";
import { schedulerOf } from "../../durable-objects/addresses.js";
import { Identifier } from "../../protocol/index.js";
import { ScheduleRequest } from "../../protocol/schedules.js";
import { problemResponse } from "../../runtime/problem.js";
import { bearerToken, safeEqual } from "../auth.js";
import { readConfig } from "../config.js";
import type { Env } from "../env.js";
import { countRejections } from "../middleware/count-rejections.js";
import { requireToken } from "../middleware/require-token.js";
import { readJsonBody } from "../read-body.js";

/**
 * `/v1/schedules`: messages posted on a timer (cron, every N seconds, or once at a time). Each run
 * goes through the front door as the sender who made the schedule (see worker/scheduler-do.ts).
 *
 *   POST   /v1/schedules                 → 201 {schedule_id, next_run_at, schedule}
 *   GET    /v1/schedules                 → {schedules}
 *   GET    /v1/schedules/:id             → the schedule
 *   DELETE /v1/schedules/:id             → {schedule_id, deleted}
 *   POST   /v1/schedules/:id/pause       → the schedule
 *   POST   /v1/schedules/:id/resume      → the schedule
 */
export const schedules = new Hono<{ Bindings: Env }>();

schedules.use("*", countRejections("/v1/schedules"));
schedules.use("*", requireToken("API_TOKEN", "ADMIN_TOKEN"));

/** Who made the schedule, named as the front door names bearer senders; the dashboard's cookie stands for the admin token. */
async function senderOf(c: Context<{ Bindings: Env }>): Promise<string> {
  const cfg = readConfig(c.env);
  const token = bearerToken(c.req.header("authorization"));
  if (!token || !cfg.ok || !cfg.config.API_TOKEN) return "admin";
  return (await safeEqual(token, cfg.config.API_TOKEN)) ? "api" : "admin";
}

schedules.post("/", async (c) => {
  const body = await readJsonBody(c, ScheduleRequest);
  if (!body.ok) return body.response;
  const created = await schedulerOf(c.env).create({ ...body.value, sender: await senderOf(c) });
  if (!created.ok)
    return problemResponse(400, "Invalid schedule", created.error, {
      errors: [{ path: created.field, message: created.error }],
    });
  const s = created.schedule;
  return c.json({ schedule_id: s.schedule_id, next_run_at: s.next_run_at, schedule: s }, 201);
});

schedules.get("/", async (c) => c.json({ schedules: await schedulerOf(c.env).list() }));

const notFound = (id: string) => problemResponse(404, "Not found", `no schedule '${id}'`);

schedules.get("/:id", async (c) => {
  const id = c.req.param("id");
  if (!Identifier.safeParse(id).success) return problemResponse(400, "Invalid schedule id");
  const s = await schedulerOf(c.env).get(id);
  return s ? c.json(s) : notFound(id);
});

schedules.delete("/:id", async (c) => {
  const id = c.req.param("id");
  if (!Identifier.safeParse(id).success) return problemResponse(400, "Invalid schedule id");
  return (await schedulerOf(c.env).remove(id)) ? c.json({ schedule_id: id, deleted: true }) : notFound(id);
});

for (const action of ["pause", "resume"] as const) {
  schedules.post(`/:id/${action}`, async (c) => {
    const id = c.req.param("id");
    if (!Identifier.safeParse(id).success) return problemResponse(400, "Invalid schedule id");
    const s = await schedulerOf(c.env).setPaused(id, action === "pause");
    return s ? c.json(s) : notFound(id);
  });
}
