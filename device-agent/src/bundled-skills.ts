import { fileURLToPath } from "node:url";

/**
 * Set only in the package's bundle (scripts/bundle-package.ts): the skills copied into the
 * package, relative to the bundle. Running from source, the repository's top-level skills/.
 */
declare const EDGELOOP_BUNDLED_SKILLS: string | undefined;

/**
 * The folder of skills that ship with the agent (desktop-tools, pi-tools), loaded when no
 * --skills is given; a skills folder without skill.toml is searched one level down.
 */
export const BUNDLED_SKILLS_DIR = fileURLToPath(
  typeof EDGELOOP_BUNDLED_SKILLS === "string"
    ? new URL(EDGELOOP_BUNDLED_SKILLS, import.meta.url)
    : new URL("../../skills", import.meta.url),
);
