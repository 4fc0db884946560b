import type { ResultFrame } from "@edgeloop/protocol";
import type { MqttToolCommand } from "@edgeloop/protocol/mqtt-payloads";

/**
 * EvoClaw's agent keeps rumqttc's default packet limit (`MqttOptions::new`: 10 KiB in and out).
 * A command over it, or a report over it, drops the agent's connection, and it comes back deaf
 * (evoclaw-probe.ts). So the bridge sends no command over it, and asks a tool that takes a size
 * for no more than its report can carry (docs/mqtt.md#evoclaw-agents-that-went-deaf).
 */
export const EVOCLAW_MAX_PACKET_BYTES = 10 * 1024;
/**
 * `read_file`'s own default: its report (the envelope, the path, the content as JSON text or
 * base64) stays under the packet limit even for binary content or text full of escapes.
 */
export const EVOCLAW_MAX_READ_BYTES = 4096;

/** A PUBLISH packet at QoS 1: fixed header (at most 5 bytes), topic (2 + its bytes), packet id (2), payload. */
export function publishPacketBytes(topic: string, payload: string): number {
  return 5 + 2 + Buffer.byteLength(topic) + 2 + Buffer.byteLength(payload);
}

export type Fitted = { ok: true; command: MqttToolCommand; capped: boolean } | { ok: false; refusal: ResultFrame };

/** The command as an EvoClaw agent can take it and answer it, or the result that says why it was not sent. */
export function fitForEvoClaw(command: MqttToolCommand, topic: string): Fitted {
  const params = command.payload.parameters;
  const size = params.max_bytes;
  const capped = typeof size === "number" && size > EVOCLAW_MAX_READ_BYTES;
  const fitted: MqttToolCommand = capped
    ? {
        ...command,
        payload: { ...command.payload, parameters: { ...params, max_bytes: EVOCLAW_MAX_READ_BYTES } },
      }
    : command;
  const bytes = publishPacketBytes(topic, JSON.stringify(fitted));
  if (bytes > EVOCLAW_MAX_PACKET_BYTES)
    return {
      ok: false,
      refusal: {
        type: "result",
        request_id: command.request_id,
        tool: command.payload.tool,
        status: "error",
        error:
          `the command is ${bytes} bytes; an EvoClaw agent takes MQTT packets of at most ${EVOCLAW_MAX_PACKET_BYTES} ` +
          "bytes (a larger one drops its connection), so it was not sent",
        error_type: "invalid_params",
      },
    };
  return { ok: true, command: fitted, capped };
}
