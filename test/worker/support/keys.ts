/**
 * Helpers for the scoped-key tests: issue a key through the real admin API, and the headers that
 * present it. Each test makes its own keys and devices (uid), so tests sharing storage do not meet.
 */
import { expect } from "vitest";
import { ADMIN, call } from "./front-door.js";

export type Issued = { key_id: string; key: string; headers: Record<string, string> };

export async function issueKey(body: Record<string, unknown>, vars: Record<string, string> = {}): Promise<Issued> {
  const res = await call(
    "/v1/keys",
    { method: "POST", headers: { ...ADMIN, "content-type": "application/json" }, body: JSON.stringify(body) },
    vars,
  );
  expect(res.status, await res.clone().text()).toBe(201);
  const issued = (await res.json()) as { key_id: string; key: string };
  return { ...issued, headers: { authorization: `Bearer ${issued.key}` } };
}

export const jsonPost = (body: unknown, headers: Record<string, string>): RequestInit => ({
  method: "POST",
  headers: { "content-type": "application/json", ...headers },
  body: JSON.stringify(body),
});

/** The problem a response carries (status, title, detail), for comparing two refusals. */
export async function problemOf(res: Response): Promise<{ status: number; title: string; detail?: string }> {
  const body = (await res.json()) as { title: string; detail?: string };
  return { status: res.status, title: body.title, ...(body.detail ? { detail: body.detail } : {}) };
}
