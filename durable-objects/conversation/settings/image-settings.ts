import type { ImageFit } from "@edgeloop/protocol";
import type { Result } from "@edgeloop/protocol/result";
import { z } from "zod";
import { intVar, oncePerEnv, parseVars, type VarsOf } from "../../../runtime/vars.js";
import type { ImageLimits } from "../core/index.js";

/**
 * What the model is shown of the images in a conversation, and how large a message's images may
 * be (docs/images.md). The defaults follow the bundled `image` tool's (it fits a picture to
 * 1568x1568 before sending it), and Anthropic's per-image limit.
 */
export const ImageVarsSchema = z.object({
  LLM_VISION: z
    .enum(["auto", "true", "false"])
    .default("auto")
    .describe(
      "`false` for a text-only model: images in tool results and messages reach it as a placeholder naming the call " +
        "that produced them, never as an error. `auto`: on, except on `workers-ai`, where only its vision models " +
        "(names with `vision`, `llama-4`, `gemma-3`, `mistral-small-3`) are sent images.",
    ),
  IMAGE_MAX_WIDTH: intVar(16, 16_384)
    .default(1568)
    .describe("Widest image sent to the model (pixels, from its header)."),
  IMAGE_MAX_HEIGHT: intVar(16, 16_384).default(1568).describe("Tallest image sent to the model (pixels)."),
  IMAGE_MAX_BYTES: intVar(1024, 20 * 1024 * 1024)
    .default(3_750_000)
    .describe("Largest image sent to the model; a larger one becomes a placeholder saying why."),
  IMAGES_IN_CONTEXT: intVar(0, 100)
    .default(4)
    .describe("How many of the latest images the model is sent; older ones become a placeholder naming their call."),
  MESSAGE_IMAGES_MAX_BYTES: intVar(1024, 50 * 1024 * 1024)
    .default(5 * 1024 * 1024)
    .describe(
      "Largest total (decoded) of the images in one `POST /v1/messages` (413 above); the body may be this much " +
        "(base64-encoded) larger than MAX_BODY_BYTES.",
    ),
});

export type ImageVars = VarsOf<typeof ImageVarsSchema.shape>;
export type ImageSettings = {
  /** `vision` as configured; `auto` is settled per model by modelImageLimits */
  limits: Omit<ImageLimits, "vision"> & { vision: boolean | "auto" };
  messageImagesMaxBytes: number;
};

export const imageSettings = oncePerEnv((env: ImageVars): Result<ImageSettings> => {
  const vars = parseVars(ImageVarsSchema, env);
  if (!vars.ok) return vars;
  const v = vars.value;
  return {
    ok: true,
    value: {
      limits: {
        vision: v.LLM_VISION === "auto" ? "auto" : v.LLM_VISION === "true",
        maxWidth: v.IMAGE_MAX_WIDTH,
        maxHeight: v.IMAGE_MAX_HEIGHT,
        maxBytes: v.IMAGE_MAX_BYTES,
        inContext: v.IMAGES_IN_CONTEXT,
      },
      messageImagesMaxBytes: v.MESSAGE_IMAGES_MAX_BYTES,
    },
  };
});

/** Workers AI models that read images, by name; its text models refuse image parts. */
const WORKERS_AI_VISION = /vision|llama-4|gemma-3|mistral-small-3/i;

/** The limits for one model: `LLM_VISION=auto` settled by its provider and name. */
export function modelImageLimits(settings: ImageSettings, provider: string, model: string): ImageLimits {
  const { vision } = settings.limits;
  const sees = vision === "auto" ? provider !== "workers-ai" || WORKERS_AI_VISION.test(model) : vision;
  return { ...settings.limits, vision: sees };
}

/** The limits a device fits its pictures to (docs/images.md); none for a text-only model. */
export function deviceImageFit(env: ImageVars): ImageFit | null {
  const settings = imageSettings(env);
  if (!settings.ok || settings.value.limits.vision === false) return null;
  const { maxWidth, maxHeight, maxBytes } = settings.value.limits;
  return { max_width: maxWidth, max_height: maxHeight, max_bytes: maxBytes };
}
