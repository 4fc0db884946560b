/** The model's image limits from a command reach the tool as EDGELOOP_IMAGE_MAX_*, never loosening the device's own. */
import { describe, expect, it } from "vitest";
import { imageBytesWithin, toolEnv, toolEnvBase } from "../../../device-agent/src/executor/tool-env.js";

const call = { workspace: "/ws", requestId: "r1", tool: "image", timeoutMs: 1000 };
const limits = { max_width: 800, max_height: 600, max_bytes: 200_000 };

describe("toolEnv: image limits", () => {
  it("sets the command's limits for the call", () => {
    const env = toolEnv(toolEnvBase({}, {}), { ...call, imageLimits: limits });
    expect(env).toMatchObject({
      EDGELOOP_IMAGE_MAX_WIDTH: "800",
      EDGELOOP_IMAGE_MAX_HEIGHT: "600",
      EDGELOOP_IMAGE_MAX_BYTES: "200000",
    });
  });

  it("keeps the device's own setting where it is stricter, and ignores a bad one", () => {
    const base = toolEnvBase({ EDGELOOP_IMAGE_MAX_WIDTH: "640", EDGELOOP_IMAGE_MAX_HEIGHT: "big" }, {});
    const env = toolEnv(base, { ...call, imageLimits: limits });
    expect(env.EDGELOOP_IMAGE_MAX_WIDTH).toBe("640");
    expect(env.EDGELOOP_IMAGE_MAX_HEIGHT).toBe("600");
  });

  it("fits pictures within the agent's output cap, whose overflow would fail the call", () => {
    const capped = toolEnv(toolEnvBase({}, {}), { ...call, imageLimits: limits, outputCapBytes: 256 * 1024 });
    expect(Number(capped.EDGELOOP_IMAGE_MAX_BYTES)).toBe(imageBytesWithin(256 * 1024));
    // base64 of the largest picture, plus its text, stays under the cap
    expect(Math.ceil(imageBytesWithin(256 * 1024) / 3) * 4 + 16 * 1024).toBeLessThanOrEqual(256 * 1024);
    const roomy = toolEnv(toolEnvBase({}, {}), { ...call, imageLimits: limits, outputCapBytes: 8 * 1024 * 1024 });
    expect(roomy.EDGELOOP_IMAGE_MAX_BYTES).toBe("200000");
    const noCommandLimits = toolEnv(toolEnvBase({}, {}), { ...call, outputCapBytes: 256 * 1024 });
    expect(noCommandLimits.EDGELOOP_IMAGE_MAX_BYTES).toBe(String(imageBytesWithin(256 * 1024)));
  });

  it("without limits in the command or a cap, leaves the device's settings alone", () => {
    const env = toolEnv(toolEnvBase({ EDGELOOP_IMAGE_MAX_WIDTH: "640" }, {}), call);
    expect(env.EDGELOOP_IMAGE_MAX_WIDTH).toBe("640");
    expect(env.EDGELOOP_IMAGE_MAX_BYTES).toBeUndefined();
  });
});
