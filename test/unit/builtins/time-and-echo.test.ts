import { describe, expect, it } from "vitest";
import { echo } from "../../../durable-objects/conversation/builtins/echo.js";
import { getCurrentTime, isoInZone } from "../../../durable-objects/conversation/builtins/get-current-time.js";
import { fakeWorld, NOW } from "./fake-context.js";
import { errorOf, successText } from "./run.js";

describe("get_current_time", () => {
  const { ctx } = fakeWorld();

  it("defaults to ISO 8601 in UTC", async () => {
    expect(await successText(getCurrentTime, {}, ctx)).toBe("2025-01-02T03:04:05.678Z");
  });

  it("gives unix seconds", async () => {
    expect(await successText(getCurrentTime, { format: "unix" }, ctx)).toBe(String(Math.floor(NOW / 1000)));
  });

  it("gives a human date naming the zone", async () => {
    const text = await successText(getCurrentTime, { format: "human", timezone: "America/New_York" }, ctx);
    expect(text).toContain("January 1, 2025");
    expect(text).toMatch(/10:04:05\sPM/);
    expect(text).toMatch(/EST/);
  });

  it("gives ISO 8601 with the zone's offset", async () => {
    expect(await successText(getCurrentTime, { timezone: "Europe/Berlin" }, ctx)).toBe("2025-01-02T04:04:05.678+01:00");
    expect(await successText(getCurrentTime, { timezone: "Asia/Kolkata" }, ctx)).toBe("2025-01-02T08:34:05.678+05:30");
    expect(await successText(getCurrentTime, { timezone: "America/New_York" }, ctx)).toBe(
      "2025-01-01T22:04:05.678-05:00",
    );
  });

  it("handles summer time and midnight in a zone", () => {
    expect(isoInZone(Date.UTC(2025, 6, 1, 22, 0, 0), "Europe/Berlin")).toBe("2025-07-02T00:00:00.000+02:00");
  });

  it("rejects an unknown time zone as invalid_params", async () => {
    const err = await errorOf(getCurrentTime, { timezone: "Mars/Olympus_Mons" }, ctx);
    expect(err.error_type).toBe("invalid_params");
    expect(err.error).toContain("Mars/Olympus_Mons");
  });

  it("rejects an unknown format naming the field", async () => {
    const err = await errorOf(getCurrentTime, { format: "rfc2822" }, ctx);
    expect(err.error_type).toBe("invalid_params");
    expect(err.error).toContain("format");
  });
});

describe("echo", () => {
  const { ctx } = fakeWorld();

  it("returns its text unchanged", async () => {
    expect(await successText(echo, { text: "  hello\nworld " }, ctx)).toBe("  hello\nworld ");
  });

  it("needs text", async () => {
    const err = await errorOf(echo, {}, ctx);
    expect(err.error_type).toBe("invalid_params");
    expect(err.error).toContain("text");
  });
});
