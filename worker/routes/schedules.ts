import { Identifier } from "@edgeloop/protocol";
import { ScheduleRequest } from "@edgeloop/protocol/schedules";
import { type Context, Hono } from "hono";
import { conversationFor, schedulerOf } from "../../durable-objects/addresses.js";
import { canSee, hasScope, targetRefusal } from "../../runtime/access.js";
import { problemResponse } from "../../runtime/problem.js";
import type { AppEnv } from "../env.js";
import { authorize } from "../middleware/authorize.js";
import { countRejections } from "../middleware/count-rejections.js";
import { readJsonBody } from "../read-body.js";

/**
 * `/v1/schedules`: messages posted on a timer (cron, every N seconds, or once at a time). Each run
 * goes through the front door as the sender who made the schedule (see durable-objects/scheduler/deliver-run.ts).
 *
 *   POST   /v1/schedules                 → 201 {schedule_id, next_run_at, schedule}
 *   GET    /v1/schedules                 → {schedules}
 *   GET    /v1/schedules/:id             → the schedule
 *   DELETE /v1/schedules/:id             → {schedule_id, deleted}
 *   POST   /v1/schedules/:id/pause       → the schedule
 *   POST   /v1/schedules/:id/resume      → the schedule
 *
 * A scoped key (scope `schedules`) sees and changes only its own schedules (any other is 404), may
 * aim them only at its devices and its own conversations, and each run is checked against the key
 * again: a revoked key's runs are refused and counted.
 */
export const schedules = new Hono<AppEnv>();

schedules.use("*", countRejections("/v1/schedules"));
schedules.use("*", authorize("schedules"));

/** What a scoped principal's list and lookups are limited to: its own schedules. */
const ownerFilter = (c: Context<AppEnv>) => {
  const p = c.var.principal;
  return p.scoped ? p.id : undefined;
};

schedules.post("/", async (c) => {
  const body = await readJsonBody(c, ScheduleRequest);
  if (!body.ok) return body.response;
  const principal = c.var.principal;
  if (principal.scoped) {
    if (!hasScope(principal, "messages"))
      return problemResponse(403, "Forbidden", "a schedule posts messages: this key needs the scope 'messages'");
    const outside = targetRefusal(principal, body.value);
    if (outside)
      return problemResponse(403, "Forbidden", outside.detail, {
        errors: [{ path: outside.field, message: outside.detail }],
      });
    const id = body.value.conversation_id;
    if (id !== undefined) {
      const { exists, owner } = await conversationFor(c.env, id).ownership();
      if (exists && !canSee(principal, owner)) return problemResponse(404, "Not found", `no conversation '${id}'`);
    }
  }
  // Runs are posted as whoever made the schedule (the dashboard's session is the admin).
  const created = await schedulerOf(c.env).create({ ...body.value, sender: principal.id });
  if (!created.ok)
    return problemResponse(400, "Invalid schedule", created.error, {
      errors: [{ path: created.field, message: created.error }],
    });
  const s = created.schedule;
  return c.json({ schedule_id: s.schedule_id, next_run_at: s.next_run_at, schedule: s }, 201);
});

schedules.get("/", async (c) => c.json({ schedules: await schedulerOf(c.env).list(ownerFilter(c)) }));

const notFound = (id: string) => problemResponse(404, "Not found", `no schedule '${id}'`);

schedules.get("/:id", async (c) => {
  const id = c.req.param("id");
  if (!Identifier.safeParse(id).success) return problemResponse(400, "Invalid schedule id");
  const s = await schedulerOf(c.env).get(id, ownerFilter(c));
  return s ? c.json(s) : notFound(id);
});

schedules.delete("/:id", async (c) => {
  const id = c.req.param("id");
  if (!Identifier.safeParse(id).success) return problemResponse(400, "Invalid schedule id");
  return (await schedulerOf(c.env).remove(id, ownerFilter(c)))
    ? c.json({ schedule_id: id, deleted: true })
    : notFound(id);
});

for (const action of ["pause", "resume"] as const) {
  schedules.post(`/:id/${action}`, async (c) => {
    const id = c.req.param("id");
    if (!Identifier.safeParse(id).success) return problemResponse(400, "Invalid schedule id");
    const s = await schedulerOf(c.env).setPaused(id, action === "pause", ownerFilter(c));
    return s ? c.json(s) : notFound(id);
  });
}
