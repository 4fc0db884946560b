import { describe, expect, it } from "vitest";
import {
  ALARM_LATENESS_MS,
  backstopAt,
  enforcedAt,
  heldForDevice,
  RestartWindowVarsSchema,
} from "../../../runtime/restart-window.js";

const START = 1_000_000;
const WINDOW = 30_000;

describe("enforcedAt: deadlines that passed while the object was down", () => {
  it("keeps a deadline that falls after the object started", () => {
    expect(enforcedAt(START + 5_000, START, WINDOW)).toBe(START + 5_000);
  });

  it("keeps a deadline the object's own alarm woke it for (started just after it)", () => {
    expect(enforcedAt(START - 20, START, WINDOW)).toBe(START - 20);
    expect(enforcedAt(START - ALARM_LATENESS_MS, START, WINDOW)).toBe(START - ALARM_LATENESS_MS);
  });

  it("moves a deadline that passed during an outage to the window's end after the start", () => {
    expect(enforcedAt(START - ALARM_LATENESS_MS - 1, START, WINDOW)).toBe(START + WINDOW);
    expect(enforcedAt(START - 45_000, START, WINDOW)).toBe(START + WINDOW);
  });

  it("a window of 0 enforces such a deadline at the start, as before the window existed", () => {
    expect(enforcedAt(START - 45_000, START, 0)).toBe(START);
  });
});

describe("heldForDevice: a hub's command that may be on a device", () => {
  const away = { sentBeforeStart: true, deviceBack: false };

  it("holds a deadline just after a restart until the window's end while the device is away", () => {
    // The runtime came back 500 ms before the deadline: the device had no time to reconnect.
    expect(heldForDevice(START + 500, START, WINDOW, away)).toBe(START + WINDOW);
    expect(heldForDevice(START - 20, START, WINDOW, away)).toBe(START + WINDOW);
  });

  it("keeps a deadline later than the window", () => {
    expect(heldForDevice(START + WINDOW + 5, START, WINDOW, away)).toBe(START + WINDOW + 5);
  });

  it("holds nothing once the device is back, or for a command this instance sent", () => {
    expect(heldForDevice(START + 500, START, WINDOW, { sentBeforeStart: true, deviceBack: true })).toBe(START + 500);
    expect(heldForDevice(START + 500, START, WINDOW, { sentBeforeStart: false, deviceBack: false })).toBe(START + 500);
  });

  it("still moves a deadline that passed during the outage, device back or not", () => {
    const passed = START - ALARM_LATENESS_MS - 1;
    expect(heldForDevice(passed, START, WINDOW, { sentBeforeStart: true, deviceBack: true })).toBe(START + WINDOW);
  });
});

describe("backstopAt: a conversation's own deadline for a call", () => {
  it("is never sooner than the window after the conversation started", () => {
    // The runtime came back 400 ms before the backstop: the hub is still waiting for the device.
    expect(backstopAt(START + 400, START, WINDOW)).toBe(START + WINDOW);
    expect(backstopAt(START - 45_000, START, WINDOW)).toBe(START + WINDOW);
  });

  it("keeps a backstop later than that", () => {
    expect(backstopAt(START + WINDOW + 1, START, WINDOW)).toBe(START + WINDOW + 1);
  });
});

describe("DEVICE_RECONNECT_WINDOW_MS", () => {
  it("defaults to the agent's longest reconnect delay and refuses what is not a bounded integer", () => {
    expect(RestartWindowVarsSchema.parse({}).DEVICE_RECONNECT_WINDOW_MS).toBe(30_000);
    expect(RestartWindowVarsSchema.parse({ DEVICE_RECONNECT_WINDOW_MS: "5000" }).DEVICE_RECONNECT_WINDOW_MS).toBe(5000);
    expect(RestartWindowVarsSchema.safeParse({ DEVICE_RECONNECT_WINDOW_MS: "soon" }).success).toBe(false);
    expect(RestartWindowVarsSchema.safeParse({ DEVICE_RECONNECT_WINDOW_MS: "-1" }).success).toBe(false);
    expect(RestartWindowVarsSchema.safeParse({ DEVICE_RECONNECT_WINDOW_MS: "700000" }).success).toBe(false);
  });
});
