import { z } from "zod";
import { CliError, EXIT, type ExitCode, usageError } from "./exit-codes.js";
import type { Settings } from "./settings.js";

/** Which token a route wants. The admin token works everywhere; the API token only on API routes. */
export type AuthKind = "api" | "admin";

const Problem = z.object({
  title: z.string().optional(),
  detail: z.string().optional(),
  status: z.number().optional(),
});

/** Where the CLI takes the admin token from, as a person is told to give it. */
const ADMIN_TOKEN_SETTINGS =
  "use the admin token: set EDGELOOP_ADMIN_TOKEN, pass --admin-token, or admin_token in cli.toml";

function exitCodeFor(status: number): ExitCode {
  if (status === 401 || status === 403) return EXIT.auth;
  if (status === 404) return EXIT.not_found;
  // The server validated what we sent and refused it: the invocation was wrong.
  if (status === 400 || status === 422) return EXIT.usage;
  return EXIT.failure;
}

/** The worker's HTTP API, with problem+json answers turned into CliErrors carrying an exit code. */
export class ApiClient {
  constructor(readonly settings: Settings) {}

  private token(auth: AuthKind): string {
    const s = this.settings;
    const token = auth === "admin" ? (s.adminToken ?? s.token) : (s.token ?? s.adminToken);
    if (!token) {
      const where = s.urlIsDefault
        ? ` EDGELOOP_URL is not set either (this would go to the local worker, ${s.url}): ` +
          "export EDGELOOP_URL=https://<your worker> for a deployed one."
        : "";
      throw usageError(
        auth === "admin"
          ? "no admin token is set: export EDGELOOP_ADMIN_TOKEN=<the admin token> (npm start and " +
              "`npx edgeloop deploy` print it), or pass --admin-token, or admin_token in ~/.config/edgeloop/cli.toml." +
              where
          : "no token is set: export EDGELOOP_TOKEN=<the API token> (or EDGELOOP_ADMIN_TOKEN), or pass --token or " +
              "--admin-token, or token in ~/.config/edgeloop/cli.toml." +
              where,
      );
    }
    return token;
  }

  async fetch(
    path: string,
    init: { method?: string; auth: AuthKind; body?: unknown; headers?: Record<string, string>; signal?: AbortSignal },
  ): Promise<Response> {
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.token(init.auth)}`,
      accept: "application/json",
      ...init.headers,
    };
    if (init.body !== undefined) headers["content-type"] = "application/json";
    try {
      return await fetch(`${this.settings.url}${path}`, {
        method: init.method ?? "GET",
        headers,
        ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
        ...(init.signal ? { signal: init.signal } : {}),
      });
    } catch (e) {
      if ((e as Error).name === "AbortError") throw e;
      const cause = (e as { cause?: { code?: string; message?: string } }).cause;
      const hint = this.settings.urlIsDefault
        ? " (no EDGELOOP_URL is set, so the CLI tried the local worker: start it with `npm start`, or " +
          "export EDGELOOP_URL=https://<your worker>, or pass --url)"
        : "";
      throw new CliError(
        `cannot reach ${this.settings.url}: ${cause?.code ?? cause?.message ?? (e as Error).message}${hint}`,
        EXIT.failure,
      );
    }
  }

  /** A JSON request; the answer is checked against `schema` so a changed server fails loudly here. */
  async json<S extends z.ZodType>(
    schema: S,
    path: string,
    init: { method?: string; auth: AuthKind; body?: unknown },
  ): Promise<z.infer<S>> {
    const res = await this.fetch(path, init);
    const text = await res.text();
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      /* not JSON: reported below */
    }
    if (!res.ok) throw this.problem(res.status, body, text);
    const parsed = schema.safeParse(body);
    if (!parsed.success) {
      throw new CliError(
        `unexpected answer from ${init.method ?? "GET"} ${path}: ${parsed.error.issues
          .map((i) => `${i.path.join(".")}: ${i.message}`)
          .join("; ")
          .slice(0, 300)}`,
        EXIT.failure,
      );
    }
    return parsed.data;
  }

  problem(status: number, body: unknown, text = ""): CliError {
    const p = Problem.safeParse(body);
    const what = p.success ? [p.data.title, p.data.detail].filter(Boolean).join(": ") : text.slice(0, 200);
    // A valid token on an admin route: say which setting carries the token that is needed.
    const hint =
      status === 403 && p.success && p.data.detail?.includes("ADMIN_TOKEN") ? `\n${ADMIN_TOKEN_SETTINGS}` : "";
    return new CliError(`${status} ${what || "request failed"}${hint}`, exitCodeFor(status));
  }

  /** GET /healthz needs no token: it answers whether the worker is up at all. */
  async health(): Promise<{ ok: boolean; ms: number; error?: string }> {
    const started = Date.now();
    try {
      const res = await fetch(`${this.settings.url}/healthz`, { signal: AbortSignal.timeout(10_000) });
      return {
        ok: res.status === 200,
        ms: Date.now() - started,
        ...(res.status === 200 ? {} : { error: `HTTP ${res.status}` }),
      };
    } catch (e) {
      const cause = (e as { cause?: { code?: string } }).cause;
      return { ok: false, ms: Date.now() - started, error: cause?.code ?? (e as Error).message };
    }
  }
}
