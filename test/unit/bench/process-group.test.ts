import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { groupCpuMs } from "../../../bench/lib/process-cpu.js";
import { groupMembers } from "../../../bench/lib/process-group.js";
import { waitUntil } from "../../helpers/wait.js";

/** A shell leading a process group of its own with two sleeps in it, as a dev server leads its workerd. */
function group() {
  const child = spawn("sh", ["-c", "sleep 30 & sleep 30 & wait"], { detached: true, stdio: "ignore" });
  return { pgid: child.pid!, stop: () => process.kill(-child.pid!, "SIGKILL") };
}

describe("a process group's members (/proc)", () => {
  it("lists every process of the group, by pid and command name, and no other", async () => {
    const g = group();
    try {
      // The shell forks each background job as a shell that then becomes `sleep`: wait for both to have.
      const members = await waitUntil(
        async () => groupMembers(g.pgid),
        (m) => m.filter((x) => x.comm === "sleep").length === 2,
      );
      expect(members.map((m) => m.comm).sort()).toEqual(["sh", "sleep", "sleep"]);
      expect(members.find((m) => m.comm === "sh")?.pid).toBe(g.pgid);
      for (const m of members) expect(m.userMs + m.systemMs).toBeGreaterThanOrEqual(0);
      expect(Object.keys(groupCpuMs(g.pgid)).sort()).toEqual(["sh", "sleep"]);
      expect(groupMembers(process.pid).some((m) => m.pid === g.pgid)).toBe(false);
    } finally {
      g.stop();
    }
  });

  it("is empty for a group with no process", () => {
    expect(groupMembers(2 ** 22 + 12345)).toEqual([]);
  });
});
