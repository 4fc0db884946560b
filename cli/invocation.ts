/**
 * How a person runs this CLI, for the lines it prints: `npx edgeloop` in a clone (the source runs
 * through tsx; nothing is on PATH), `edgeloop` where the packed CLI was installed (its bundle).
 * A hint must be a line that runs where it was printed.
 */
export const CLI = import.meta.url.endsWith(".ts") ? "npx edgeloop" : "edgeloop";
