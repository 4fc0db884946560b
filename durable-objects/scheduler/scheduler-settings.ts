import { z } from "zod";
import { intVar, oncePerEnv, type Parsed, parseVars, type VarsOf } from "../../runtime/vars.js";

const SchedulerVarsSchema = z.object({
  /** the shortest interval a schedule may have (tests lower it) */
  MIN_SCHEDULE_SECONDS: intVar(1, 86_400).default(60),
});

/** The vars the scheduler reads. */
export type SchedulerVars = VarsOf<typeof SchedulerVarsSchema.shape>;

export type SchedulerSettings = { minScheduleSeconds: number };

/** Parsed once per isolate; a bad value refuses new schedules naming it. */
export const schedulerSettings = oncePerEnv((env: SchedulerVars): Parsed<SchedulerSettings> => {
  const vars = parseVars(SchedulerVarsSchema, env);
  if (!vars.ok) return vars;
  return { ok: true, value: { minScheduleSeconds: vars.value.MIN_SCHEDULE_SECONDS } };
});
