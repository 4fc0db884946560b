import { describe, expect, it } from "vitest";
import {
  signaturePayloads,
  verifyConnectSignature,
} from "../../../durable-objects/device-hub/wires/openclaw/device-signature.js";
import { invokeFor, outcomeOf, skillsFor } from "../../../durable-objects/device-hub/wires/openclaw/node-tools.js";
import { makeNodeKey } from "../../helpers/openclaw-node.js";

const b64url = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64url");

async function signed(version: "v3" | "v2", token = "", tamperId = false) {
  const key = await makeNodeKey();
  const fields = {
    client: { id: "node-host", mode: "node", platform: "Linux", deviceFamily: "" },
    role: "node",
    scopes: [],
    device: {
      id: tamperId ? "0".repeat(64) : key.deviceId,
      publicKey: b64url(key.publicRaw),
      signature: "",
      signedAt: 1000,
      nonce: "n1",
    },
  };
  const payload = signaturePayloads(fields, token)[version];
  const sig = await crypto.subtle.sign({ name: "Ed25519" }, key.privateKey, new TextEncoder().encode(payload));
  fields.device.signature = b64url(new Uint8Array(sig));
  return { key, fields };
}

describe("an OpenClaw node's signature over the challenge", () => {
  it("binds OpenClaw's v3 fields, platform lower-cased, in order", () => {
    const p = signaturePayloads(
      {
        client: { id: "node-host", mode: "node", platform: " Linux ", deviceFamily: "Pi" },
        role: "node",
        scopes: ["a", "b"],
        device: { id: "dev", publicKey: "k", signature: "s", signedAt: 5, nonce: "n" },
      },
      "tok",
    );
    expect(p.v3).toBe("v3|dev|node-host|node|node|a,b|5|tok|n|linux|pi");
    expect(p.v2).toBe("v2|dev|node-host|node|node|a,b|5|tok|n");
  });

  it("accepts v3 and v2 signatures by the named key, and names the device by its key's hash", async () => {
    for (const v of ["v3", "v2"] as const) {
      const { key, fields } = await signed(v, "t");
      expect(await verifyConnectSignature(fields, "t", "n1", 1000)).toMatchObject({ ok: true, deviceId: key.deviceId });
    }
  });

  it("refuses another token, another nonce, a stale time, and an id that is not the key's", async () => {
    const { fields } = await signed("v3", "t");
    expect(await verifyConnectSignature(fields, "other", "n1", 1000)).toMatchObject({
      code: "DEVICE_AUTH_SIGNATURE_INVALID",
    });
    expect(await verifyConnectSignature(fields, "t", "n2", 1000)).toMatchObject({ code: "DEVICE_AUTH_NONCE_MISMATCH" });
    expect(await verifyConnectSignature(fields, "t", "n1", 1000 + 10 * 60_000)).toMatchObject({
      code: "DEVICE_AUTH_SIGNATURE_EXPIRED",
    });
    const forged = await signed("v3", "", true);
    expect(await verifyConnectSignature(forged.fields, "", "n1", 1000)).toMatchObject({
      code: "DEVICE_AUTH_DEVICE_ID_MISMATCH",
    });
  });
});

describe("a node's commands as edgeloop tools", () => {
  const published = [
    {
      pluginId: "mcp",
      name: "read_doc",
      description: "Read a doc",
      mcp: { server: "docs", tool: "read" },
      parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
    },
  ];

  it("offers the commands it knows and the MCP tools the node publishes, when it may run them", () => {
    const tools = skillsFor(["system.run", "camera.snap", "mcp.tools.call.v1"], published)[0]!.tools;
    expect(tools.map((t) => [t.name, t.binary])).toEqual([
      ["system_run", "system.run"],
      ["camera_snap", "camera.snap"],
      ["read_doc", "mcp.tools.call.v1#docs#read"],
    ]);
    expect(tools[2]!.parameters).toEqual({
      type: "object",
      properties: { path: { type: "string" } },
      required: ["path"],
    });
    // Without mcp.tools.call.v1 advertised, a published MCP tool cannot run: not offered.
    expect(skillsFor(["system.which"], published)[0]!.tools.map((t) => t.name)).toEqual(["system_which"]);
    expect(skillsFor(["talk.ptt.start"])).toEqual([]);
  });

  // The commands of OpenClaw's platform defaults (src/gateway/node-command-policy.ts) a model can use.
  it("offers a phone's or desktop's commands, never the node's exec approvals nor its worker controls", () => {
    const advertised = [
      "system.run",
      "system.run.prepare",
      "system.which",
      "system.execApprovals.get",
      "system.execApprovals.set",
      "system.notify",
      "fs.listDir",
      "camera.list",
      "camera.snap",
      "photos.latest",
      "screen.snapshot",
      "location.get",
      "notifications.list",
      "notifications.actions",
      "device.info",
      "device.status",
      "device.permissions",
      "device.health",
      "camera.clip",
      "screen.record",
      "canvas.present",
      "canvas.hide",
      "canvas.navigate",
      "sms.send",
      "sms.search",
      "contacts.search",
      "contacts.add",
      "calendar.events",
      "calendar.add",
      "reminders.list",
      "reminders.add",
      "motion.activity",
      "motion.pedometer",
      "device.apps",
      "camera.ptz.status",
      "camera.ptz.control",
      "worker.launch.v1",
      "worker.workspace.exec.v1",
    ];
    const names = skillsFor(advertised)[0]!.tools.map((t) => t.name);
    expect(names).toEqual([
      "system_run",
      "system_which",
      "system_notify",
      "fs_listDir",
      "camera_list",
      "camera_snap",
      "photos_latest",
      "screen_snapshot",
      "location_get",
      "notifications_list",
      "notifications_actions",
      "device_info",
      "device_status",
      "device_permissions",
      "device_health",
      "camera_clip",
      "screen_record",
      "canvas_present",
      "canvas_hide",
      "canvas_navigate",
      "sms_send",
      "sms_search",
      "contacts_search",
      "contacts_add",
      "calendar_events",
      "calendar_add",
      "reminders_list",
      "reminders_add",
      "motion_activity",
      "motion_pedometer",
      "device_apps",
      "camera_ptz_status",
      "camera_ptz_control",
    ]);
    expect(names.some((n) => /execApprovals|worker/.test(n))).toBe(false);
    expect(skillsFor(["system.execApprovals.set", "worker.status.v1"])).toEqual([]);
    // Names are looked up as the node's own, not as properties every object has.
    expect(skillsFor(["constructor", "toString", "__proto__"])).toEqual([]);
  });

  // OpenClaw's DEFAULT_DANGEROUS_NODE_COMMANDS (src/gateway/node-command-policy.ts) wait for a person.
  it("asks a person first for the commands OpenClaw itself treats as dangerous", () => {
    const tools = skillsFor([
      "camera.list",
      "camera.snap",
      "camera.clip",
      "screen.snapshot",
      "screen.record",
      "sms.send",
      "sms.search",
      "location.get",
      "contacts.search",
      "contacts.add",
      "calendar.events",
      "calendar.add",
      "reminders.add",
      "camera.ptz.status",
      "camera.ptz.control",
    ])[0]!.tools;
    const asking = tools.filter((t) => t.policy === "requires_approval").map((t) => t.name);
    expect(asking).toEqual([
      "camera_snap",
      "camera_clip",
      "screen_record",
      "sms_send",
      "sms_search",
      "contacts_add",
      "calendar_add",
      "reminders_add",
      "camera_ptz_control",
    ]);
    expect(tools.filter((t) => t.policy === undefined).map((t) => t.name)).toEqual([
      "camera_list",
      "screen_snapshot",
      "location_get",
      "contacts_search",
      "calendar_events",
      "camera_ptz_status",
    ]);
  });

  it("records a clip with OpenClaw's defaults, mp4 only, the model's choices on top", () => {
    const [clip, record] = skillsFor(["camera.clip", "screen.record"])[0]!.tools;
    expect(invokeFor(clip, { facing: "back", durationMs: 2000 }, 60_000)).toEqual({
      command: "camera.clip",
      params: { facing: "back", durationMs: 2000, includeAudio: true, format: "mp4" },
    });
    expect(invokeFor(record, {}, 60_000)).toEqual({
      command: "screen.record",
      params: { durationMs: 10_000, screenIndex: 0, fps: 10, includeAudio: true, format: "mp4" },
    });
    // Room for OpenClaw's longest recording (5 minutes) and the upload.
    expect(clip!.max_timeout_ms).toBe(360_000);
  });

  it("sends a snap with the defaults OpenClaw's gateway fills in, the model's choices on top", () => {
    const [snap, shot] = skillsFor(["camera.snap", "screen.snapshot"])[0]!.tools;
    expect(invokeFor(snap, { facing: "back" }, 10_000)).toEqual({
      command: "camera.snap",
      params: { facing: "back", maxWidth: 1600, quality: 0.95, format: "jpg" },
    });
    const [photos] = skillsFor(["photos.latest"])[0]!.tools;
    expect(invokeFor(photos, { limit: 3 }, 10_000)).toEqual({
      command: "photos.latest",
      params: { limit: 3, maxWidth: 1600, quality: 0.85 },
    });
    expect(invokeFor(shot, { screenIndex: 1 }, 10_000)).toEqual({
      command: "screen.snapshot",
      params: { screenIndex: 1 },
    });
  });

  it("reads a picture as an image block for the model; a picture it cannot read is an error", () => {
    const t = { timeoutMs: 1000, elapsedMs: 7 };
    const res = (payload: object) => ({ id: "r", nodeId: "n", ok: true, payload });
    expect(
      outcomeOf("camera_snap", "camera.snap", res({ format: "jpg", base64: "/9j/4A==", width: 4, height: 3 }), t),
    ).toMatchObject({
      status: "success",
      result: "Picture from the node (jpg 4x3).",
      content: [
        { type: "text", text: "Picture from the node (jpg 4x3)." },
        { type: "image", data: "/9j/4A==", mimeType: "image/jpeg" },
      ],
    });
    expect(outcomeOf("screen_snapshot", "screen.snapshot", res({ format: "png", base64: "iVBO" }), t)).toMatchObject({
      status: "success",
      content: [{ type: "text" }, { type: "image", mimeType: "image/png" }],
    });
    // A snap answered with a URL on the node: edgeloop cannot fetch it.
    expect(
      outcomeOf(
        "camera_snap",
        "camera.snap",
        res({ format: "jpg", url: "https://10.0.0.2/x.jpg", width: 1, height: 1 }),
        t,
      ),
    ).toMatchObject({ status: "error", error_type: "execution_failed" });
    // The library's newest photos: one image each; none is a plain answer.
    const two = res({
      photos: [
        { format: "jpg", base64: "/9j/AA==", width: 2, height: 2, createdAt: "2026-11-28T10:00:00Z" },
        { format: "png", base64: "iVBO", width: 1, height: 1 },
      ],
    });
    const latest = outcomeOf("photos_latest", "photos.latest", two, t);
    expect(latest).toMatchObject({
      status: "success",
      result: "Picture from the node (jpg 2x2, taken 2026-11-28T10:00:00Z).\nPicture from the node (png 1x1).",
    });
    expect((latest as { content: { type: string }[] }).content.map((b) => b.type)).toEqual([
      "text",
      "image",
      "text",
      "image",
    ]);
    expect(outcomeOf("photos_latest", "photos.latest", res({ photos: [] }), t)).toEqual({
      status: "success",
      tool: "photos_latest",
      result: "No photos found.",
      stderr: "",
      exit_code: 0,
      elapsed_ms: 7,
    });
    // A read-only command's JSON is the model's text.
    expect(outcomeOf("location_get", "location.get", res({ lat: 1.5, lon: 2 }), t)).toMatchObject({
      status: "success",
      result: '{"lat":1.5,"lon":2}',
    });
  });

  it("builds the node's params: argv, cwd and env as given, the timeout as the node's", () => {
    const [run, , mcp] = skillsFor(["system.run", "system.which", "mcp.tools.call.v1"], published)[0]!.tools;
    expect(invokeFor(run, { command: ["ls"], cwd: "/", env: { A: "1" }, timeout_ms: 99 }, 5000)).toEqual({
      command: "system.run",
      params: { command: ["ls"], cwd: "/", env: { A: "1" }, timeoutMs: 5000 },
    });
    expect(invokeFor(mcp, { path: "x" }, 5000)).toEqual({
      command: "mcp.tools.call.v1",
      params: { server: "docs", tool: "read", arguments: { path: "x" } },
    });
    expect(invokeFor(undefined, {}, 5000)).toBeNull();
  });

  it("reads system.run's result honestly: exit code, the node's own timeout, a refusal", () => {
    const t = { timeoutMs: 1000, elapsedMs: 7 };
    const res = (payload: object) => ({ id: "r", nodeId: "n", ok: true, payloadJSON: JSON.stringify(payload) });
    expect(
      outcomeOf("system_run", "system.run", res({ exitCode: 0, success: true, stdout: "hi\n", stderr: "" }), t),
    ).toEqual({
      status: "success",
      tool: "system_run",
      result: "hi\n",
      stderr: "",
      exit_code: 0,
      elapsed_ms: 7,
    });
    expect(
      outcomeOf("system_run", "system.run", res({ exitCode: 2, success: false, stdout: "", stderr: "nope" }), t),
    ).toMatchObject({
      status: "error",
      error_type: "execution_failed",
      exit_code: 2,
      error: "exited with code 2: nope",
    });
    expect(
      outcomeOf("system_run", "system.run", res({ exitCode: null, timedOut: true, success: false }), t),
    ).toMatchObject({
      error_type: "timeout",
    });
    const denied = {
      id: "r",
      nodeId: "n",
      ok: false,
      error: { code: "SYSTEM_RUN_DENIED", message: "approval required" },
    };
    expect(outcomeOf("system_run", "system.run", denied, t)).toMatchObject({
      error_type: "permission_denied",
      error: "SYSTEM_RUN_DENIED: approval required",
    });
    const mcp = {
      id: "r",
      nodeId: "n",
      ok: true,
      payload: { content: [{ type: "text", text: "doc" }, { type: "audio" }] },
    };
    expect(outcomeOf("read_doc", "mcp.tools.call.v1", mcp, t)).toMatchObject({ status: "success", result: "doc" });
  });
});
