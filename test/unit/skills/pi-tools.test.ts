// pi-tools: cpu_temp from a thermal file, system_stats, and GPIO through the pinctrl stand-in.

import { statfsSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { FIXTURE_BIN_DIR, removeTempDirs, runTool, tempDir } from "./skill-runner.js";

afterAll(removeTempDirs);

let workspace: string;
beforeEach(() => {
  workspace = tempDir("pi");
});

// A PATH with node (for the binaries' shebang) but without any real GPIO or vcgencmd command.
const NODE_ONLY_PATH = path.dirname(process.execPath);

const pi = (binary: string, params: Record<string, unknown>, env: Record<string, string | undefined> = {}) =>
  runTool("pi-tools", binary, params, { workspace, env });

describe("cpu_temp", () => {
  it("reads millidegrees from EDGELOOP_THERMAL_PATH", async () => {
    const thermal = path.join(workspace, "temp");
    writeFileSync(thermal, "45600\n");
    const run = await pi("pi-cpu-temp", {}, { EDGELOOP_THERMAL_PATH: thermal });
    expect(run).toMatchObject({ code: 0, stdout: `CPU temperature: 45.6 °C (from ${thermal})\n` });
  });

  it("exits 66 with a clear message when there is no source", async () => {
    const run = await pi(
      "pi-cpu-temp",
      {},
      { EDGELOOP_THERMAL_PATH: path.join(workspace, "none"), PATH: NODE_ONLY_PATH },
    );
    expect(run.code).toBe(66);
    expect(run.stderr).toMatch(/does not exist and vcgencmd is not on PATH/);
  });
});

describe("system_stats", () => {
  it("reports CPU, memory and disk percentages and load as JSON", async () => {
    const run = await pi("pi-system-stats", {});
    expect(run.code).toBe(0);
    const stats = JSON.parse(run.stdout) as Record<string, unknown>;
    for (const key of ["cpu_percent", "memory_percent", "disk_percent"]) {
      expect(stats[key]).toBeTypeOf("number");
      expect(stats[key] as number).toBeGreaterThanOrEqual(0);
      expect(stats[key] as number).toBeLessThanOrEqual(100);
    }
    const fs = statfsSync(workspace);
    expect(stats.disk_total_bytes).toBe(fs.blocks * fs.bsize);
    expect(stats.disk_path).toBe(workspace);
    expect(Object.keys(stats.load_average as object)).toEqual(["1m", "5m", "15m"]);
  });
});

describe("gpio", () => {
  const gpioEnv = () => ({
    PATH: `${FIXTURE_BIN_DIR}:${NODE_ONLY_PATH}`,
    PINCTRL_FIXTURE_STATE_DIR: path.join(workspace, "pins"),
  });

  it("reads a fresh pin as low", async () => {
    const run = await pi("pi-gpio-read", { pin: 17 }, gpioEnv());
    expect(run.code).toBe(0);
    expect(run.stdout).toBe("GPIO 17 is LOW (level=0)\n17: ip    pd | lo // GPIO17 = input\n");
  });

  it("writes high, then reads back high; writes low, reads low", async () => {
    const env = gpioEnv();
    const high = await pi("pi-gpio-write", { pin: 17, level: 1 }, env);
    expect(high).toMatchObject({ code: 0 });
    expect(high.stdout).toMatch(/^GPIO 17 set to HIGH \(level=1\)/);
    expect((await pi("pi-gpio-read", { pin: 17 }, env)).stdout).toMatch(
      /^GPIO 17 is HIGH \(level=1\)\n17: op dh pd \| hi/,
    );
    await pi("pi-gpio-write", { pin: 17, level: 0 }, env);
    expect((await pi("pi-gpio-read", { pin: 17 }, env)).stdout).toMatch(/^GPIO 17 is LOW \(level=0\)/);
    // Other pins are untouched.
    expect((await pi("pi-gpio-read", { pin: 4 }, env)).stdout).toMatch(/^GPIO 4 is LOW/);
  });

  it("validates pin 0-27 and level 0/1 with 64", async () => {
    const env = gpioEnv();
    expect((await pi("pi-gpio-read", { pin: 28 }, env)).code).toBe(64);
    expect((await pi("pi-gpio-read", { pin: -1 }, env)).code).toBe(64);
    expect((await pi("pi-gpio-write", { pin: 5, level: 2 }, env)).code).toBe(64);
  });

  it("exits 66 when neither pinctrl nor raspi-gpio is installed", async () => {
    const run = await pi("pi-gpio-read", { pin: 17 }, { PATH: NODE_ONLY_PATH });
    expect(run.code).toBe(66);
    expect(run.stderr).toMatch(/neither pinctrl nor raspi-gpio is on PATH/);
  });
});
