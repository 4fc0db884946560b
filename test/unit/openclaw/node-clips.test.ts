import { describe, expect, it } from "vitest";
import {
  type ClipMeta,
  clipOutcome,
  posterInvoke,
  readClip,
} from "../../../durable-objects/device-hub/wires/openclaw/node-clips.js";

const meta: ClipMeta = {
  tool: "camera_clip",
  command: "camera.clip",
  link: "https://edge.example/v1/devices/phone/clips/abc",
  media_type: "video/mp4",
  bytes: 2048,
  durationMs: 3000,
  hasAudio: false,
};

describe("a node's clip", () => {
  it("is read from OpenClaw's payload: mp4 bytes with its duration and sound", () => {
    expect(readClip({ format: "mp4", base64: "AAAA", durationMs: 3000, hasAudio: true })).toEqual({
      media_type: "video/mp4",
      base64: "AAAA",
      durationMs: 3000,
      hasAudio: true,
    });
    // A link on the node instead of the bytes, or a format edgeloop does not know, says why.
    expect(readClip({ format: "mp4", url: "https://10.0.0.5/clip.mp4", durationMs: 1, hasAudio: true })).toMatch(
      /no clip bytes/,
    );
    expect(readClip({ format: "gif", base64: "AAAA" })).toMatch(/format edgeloop does not know \(gif\)/);
    expect(readClip(null)).toMatch(/\(none\)/);
  });

  it("gets its poster from the same camera or screen, only when the node advertises the command", () => {
    expect(posterInvoke("camera.clip", { facing: "back", deviceId: "cam2" }, ["camera.clip", "camera.snap"])).toEqual({
      command: "camera.snap",
      params: { facing: "back", maxWidth: 1600, quality: 0.95, format: "jpg", deviceId: "cam2" },
    });
    expect(posterInvoke("screen.record", { screenIndex: 1 }, ["screen.snapshot"])).toEqual({
      command: "screen.snapshot",
      params: { screenIndex: 1 },
    });
    expect(posterInvoke("screen.record", {}, ["screen.snapshot"])?.params).toEqual({ screenIndex: 0 });
    expect(posterInvoke("camera.clip", {}, ["camera.clip"])).toBeNull();
    expect(posterInvoke("screen.record", {}, ["camera.snap"])).toBeNull();
  });

  it("ends as the link and the poster, called what it is", () => {
    const image = { type: "image" as const, data: "/9j/", mimeType: "image/jpeg" };
    const out = clipOutcome(meta, [{ type: "text", text: "Picture from the node (jpg 4x3)." }, image], 42);
    expect(out).toMatchObject({ status: "success", tool: "camera_clip", elapsed_ms: 42 });
    const text = out.status === "success" ? out.result : "";
    expect(text).toContain("stored at https://edge.example/v1/devices/phone/clips/abc");
    expect(text).toContain("video/mp4, 2048 bytes, 3.0 s, no sound");
    expect(text).toContain("a photo taken with the same camera right after the clip ended");
    expect(text).toContain("not a frame of the clip");
    expect(out.status === "success" && out.content?.at(-1)).toEqual(image);
  });

  it("without a poster, says why and carries no image", () => {
    const out = clipOutcome({ ...meta, command: "screen.record" }, "the node does not advertise screen.snapshot", 5);
    expect(out.status === "success" && out.result).toContain("No poster: the node does not advertise screen.snapshot.");
    expect(out.status === "success" && out.content).toBeUndefined();
  });
});
