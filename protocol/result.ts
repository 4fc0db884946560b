/**
 * The one shape of a step that can fail with a reason a person reads: settings parsed, a file
 * read, a frame decoded. Failures that carry more (a parse's field issues, `Parsed` in parse.ts;
 * an HTTP answer) extend it where they are made.
 */
export type Result<T, E = string> = { ok: true; value: T } | { ok: false; error: E };
