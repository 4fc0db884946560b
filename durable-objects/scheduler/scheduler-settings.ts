import type { Result } from "@edgeloop/protocol/result";
import { z } from "zod";
import { intVar, oncePerEnv, parseVars, type VarsOf } from "../../runtime/vars.js";

export const SchedulerVarsSchema = z.object({
  MIN_SCHEDULE_SECONDS: intVar(1, 86_400)
    .default(60)
    .describe("The shortest interval a schedule may have (docs/long-lived.md); tests lower it."),
});

/** The vars the scheduler reads. */
export type SchedulerVars = VarsOf<typeof SchedulerVarsSchema.shape>;

export type SchedulerSettings = { minScheduleSeconds: number };

/** Parsed once per isolate; a bad value refuses new schedules naming it. */
export const schedulerSettings = oncePerEnv((env: SchedulerVars): Result<SchedulerSettings> => {
  const vars = parseVars(SchedulerVarsSchema, env);
  if (!vars.ok) return vars;
  return { ok: true, value: { minScheduleSeconds: vars.value.MIN_SCHEDULE_SECONDS } };
});
