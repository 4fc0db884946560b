import { type DeviceFrame, type HubFrame, type Parsed, parseDeviceFrame } from "@edgeloop/protocol";

/**
 * The edgeloop wire's text in and out, pure: the protocol's frames as they are (docs/protocol.md),
 * which is what edgeloop's agent and the MQTT bridge speak.
 */

/** A device frame from its text, or why it is not one. */
export const decodeEdgeloopFrame = (text: string): Parsed<DeviceFrame> => parseDeviceFrame(text);

/** A hub frame as the agent and the bridge read it: the frame itself, as JSON. */
export const encodeEdgeloopFrame = (frame: HubFrame): string => JSON.stringify(frame);
