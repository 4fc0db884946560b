/**
 * What each redirect asks the next request to be (runtime/guarded-fetch.ts's nextInit), as fetch itself does:
 * 303, and 301/302 after a POST, become a GET (a HEAD stays a HEAD) without a body; 307/308 and a 301/302 after
 * anything else repeat the method and body. The fetch underneath records what it was asked.
 */
import { describe, expect, it } from "vitest";
import { guardedFetch, OutboundRefused } from "../../../runtime/guarded-fetch.js";

type Asked = { url: string; method: string | undefined; body: unknown; headers: Headers; redirect: string | undefined };

function recording(answers: Record<string, () => Response>) {
  const asked: Asked[] = [];
  const impl = (async (input: string | URL, init: RequestInit = {}) => {
    asked.push({
      url: String(input),
      method: init.method,
      body: init.body,
      headers: new Headers(init.headers),
      redirect: init.redirect,
    });
    return answers[String(input)]!();
  }) as typeof fetch;
  return { asked, impl };
}
const to = (status: number) => () => new Response(null, { status, headers: { location: "https://b.example/next" } });
const ok = () => new Response("fine");
const STRICT = { allowPrivate: false };

async function hop(status: number, method: string | undefined) {
  const { asked, impl } = recording({ "https://a.example/": to(status), "https://b.example/next": ok });
  const init: RequestInit = { headers: { "content-type": "text/plain", "x-keep": "1" } };
  if (method !== undefined) init.method = method;
  if (method === "POST" || method === "PUT") init.body = "payload";
  await guardedFetch(STRICT, impl)("https://a.example/", init);
  return asked[1]!;
}

describe("a redirect's next request", () => {
  it("is a GET without a body after a 303, whatever the method; a HEAD stays a HEAD", async () => {
    for (const method of ["POST", "PUT", "delete"]) {
      const next = await hop(303, method);
      expect([next.method, next.body ?? null, next.headers.get("content-type")], method).toEqual(["GET", null, null]);
      expect(next.headers.get("x-keep")).toBe("1");
    }
    expect((await hop(303, "HEAD")).method).toBe("HEAD");
    expect((await hop(303, "head")).method).toBe("HEAD");
  });

  it("is a GET after a 301 or 302 that answered a POST, and repeats any other method", async () => {
    for (const status of [301, 302]) {
      const post = await hop(status, "post");
      expect([post.method, post.body ?? null], String(status)).toEqual(["GET", null]);
      const put = await hop(status, "PUT");
      expect([put.method, put.body, put.headers.get("content-type")], String(status)).toEqual([
        "PUT",
        "payload",
        "text/plain",
      ]);
      expect((await hop(status, undefined)).method).toBeUndefined();
    }
  });

  it("repeats the method and body after a 307 or 308", async () => {
    for (const status of [307, 308]) {
      const next = await hop(status, "POST");
      expect([next.method, next.body, next.headers.get("content-type")]).toEqual(["POST", "payload", "text/plain"]);
    }
  });

  it("is sent with redirects handled here, not by fetch", async () => {
    expect((await hop(302, "GET")).redirect).toBe("manual");
  });
});

describe("what is not followed", () => {
  it("a redirect the caller asked to see, or to fail on, goes to fetch as asked", async () => {
    for (const redirect of ["manual", "error"] as const) {
      const { asked, impl } = recording({ "https://a.example/": to(302) });
      const res = await guardedFetch(STRICT, impl)("https://a.example/", { redirect });
      expect(res.status).toBe(302);
      expect(asked.map((a) => a.redirect)).toEqual([redirect]);
    }
  });

  it("a Location on an answer that is not a redirect, and a redirect without one", async () => {
    const withLocation = () =>
      new Response("created", { status: 201, headers: { location: "https://b.example/next" } });
    const bare = () => new Response(null, { status: 302 });
    for (const answer of [withLocation, bare]) {
      const { asked, impl } = recording({ "https://a.example/": answer });
      const res = await guardedFetch(STRICT, impl)("https://a.example/");
      expect(asked).toHaveLength(1);
      expect(res.status).toBe(answer === bare ? 302 : 201);
    }
  });

  it("a refused first URL says so plainly; a refused hop names where it came from", async () => {
    const { impl } = recording({
      "https://a.example/": () => new Response(null, { status: 302, headers: { location: "http://b.example/" } }),
    });
    const first = await guardedFetch(STRICT, impl)("http://a.example/").catch((e: Error) => e);
    expect(first).toBeInstanceOf(OutboundRefused);
    expect((first as Error).name).toBe("OutboundRefused");
    expect((first as Error).message).toMatch(/^only https/);
    const hopped = await guardedFetch(STRICT, impl)("https://a.example/").catch((e: Error) => e);
    expect((hopped as Error).message).toMatch(/^redirect from https:\/\/a\.example refused: /);
  });
});
