import { z } from "zod";
import { parseArgs } from "./args.js";
import { doneError, doneText } from "./outcome.js";
import type { Builtin } from "./types.js";

const NAME = "get_current_time";

const Args = z.object({
  format: z.enum(["iso8601", "unix", "human"]).default("iso8601"),
  timezone: z.string().min(1).optional(),
});

/** The current time, with an optional IANA zone resolved through Intl (no tz database of our own). */
export const getCurrentTime: Builtin = {
  name: NAME,
  description:
    "Current date and time. format: iso8601 (default), unix (seconds) or human. timezone: an IANA name such as Europe/Berlin (default UTC).",
  parameters: {
    type: "object",
    properties: {
      format: { type: "string", enum: ["iso8601", "unix", "human"], default: "iso8601", description: "Output format" },
      timezone: { type: "string", description: "IANA time zone, e.g. America/New_York; default UTC" },
    },
    required: [],
  },
  async run(args, ctx) {
    const parsed = parseArgs(NAME, Args, args);
    if (!parsed.ok) return parsed.result;
    const { format, timezone } = parsed.value;
    const now = ctx.now();
    if (timezone !== undefined && !isValidTimeZone(timezone)) {
      return doneError(
        NAME,
        `unknown time zone "${timezone}": use an IANA name such as Europe/Berlin or UTC`,
        "invalid_params",
      );
    }
    if (format === "unix") return doneText(NAME, String(Math.floor(now / 1000)));
    if (format === "human") return doneText(NAME, formatHuman(now, timezone ?? "UTC"));
    return doneText(NAME, timezone === undefined ? new Date(now).toISOString() : isoInZone(now, timezone));
  },
};

function isValidTimeZone(timeZone: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone });
    return true;
  } catch {
    return false;
  }
}

function formatHuman(now: number, timeZone: string): string {
  return new Intl.DateTimeFormat("en-US", { dateStyle: "full", timeStyle: "long", timeZone }).format(new Date(now));
}

/** ISO 8601 with the zone's offset (e.g. 2025-01-02T04:04:05.000+01:00), derived from Intl's wall-clock parts. */
export function isoInZone(now: number, timeZone: string): string {
  const parts = new Intl.DateTimeFormat("en-US", {
    timeZone,
    hourCycle: "h23",
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
  }).formatToParts(new Date(now));
  const part = (type: Intl.DateTimeFormatPartTypes) => Number(parts.find((p) => p.type === type)?.value ?? "0");
  const ms = ((now % 1000) + 1000) % 1000;
  const wallClockAsUtc = Date.UTC(
    part("year"),
    part("month") - 1,
    part("day"),
    part("hour"),
    part("minute"),
    part("second"),
    ms,
  );
  const offsetMinutes = Math.round((wallClockAsUtc - now) / 60_000);
  const pad = (n: number, width = 2) => String(n).padStart(width, "0");
  const sign = offsetMinutes < 0 ? "-" : "+";
  const abs = Math.abs(offsetMinutes);
  const date = `${pad(part("year"), 4)}-${pad(part("month"))}-${pad(part("day"))}`;
  const time = `${pad(part("hour"))}:${pad(part("minute"))}:${pad(part("second"))}.${pad(ms, 3)}`;
  return `${date}T${time}${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
}
