/**
 * Redirects under the outbound rule (runtime/guarded-fetch.ts): followed one hop at a time, each
 * Location checked before it is requested, at most MAX_REDIRECTS hops. The fetch underneath is a
 * stand-in that records what it was asked: nothing here reaches the network.
 */
import { describe, expect, it } from "vitest";
import { deliverSigned } from "../../../durable-objects/conversation/effects/reply-delivery.js";
import { guardedFetch, MAX_REDIRECTS, OutboundRefused } from "../../../runtime/guarded-fetch.js";

type Asked = { url: string; method: string; body: string | null; headers: Headers };

/** A fetch that answers from a map of URL → response maker, recording each request. */
function stubFetch(answers: Record<string, () => Response>) {
  const asked: Asked[] = [];
  const fetchStub = (async (input: string | URL, init: RequestInit = {}) => {
    const url = String(input);
    asked.push({
      url,
      method: init.method ?? "GET",
      body: typeof init.body === "string" ? init.body : null,
      headers: new Headers(init.headers),
    });
    const answer = answers[url];
    if (!answer) throw new Error(`unexpected request to ${url}`);
    return answer();
  }) as typeof fetch;
  return { asked, fetchStub };
}

const redirect = (status: number, location: string) => () => new Response(null, { status, headers: { location } });
const ok = () => new Response("fine", { status: 200 });
const STRICT = { allowPrivate: false };

describe("guardedFetch", () => {
  it("refuses a private URL before sending anything", async () => {
    const { asked, fetchStub } = stubFetch({});
    await expect(guardedFetch(STRICT, fetchStub)("https://169.254.169.254/")).rejects.toBeInstanceOf(OutboundRefused);
    await expect(guardedFetch(STRICT, fetchStub)("http://hooks.example.com/")).rejects.toThrow("only https");
    expect(asked).toEqual([]);
  });

  it("follows redirects that stay public, with fetch's method rules", async () => {
    const { asked, fetchStub } = stubFetch({
      "https://a.example.com/hook": redirect(307, "/moved"),
      "https://a.example.com/moved": redirect(302, "https://b.example.com/next"),
      "https://b.example.com/next": ok,
    });
    const res = await guardedFetch(STRICT, fetchStub)("https://a.example.com/hook", {
      method: "POST",
      body: '{"x":1}',
      headers: { authorization: "Bearer secret", "content-type": "application/json", "x-webhook-signature": "s" },
    });
    expect(await res.text()).toBe("fine");
    expect(asked.map((a) => [a.method, a.url, a.body])).toEqual([
      ["POST", "https://a.example.com/hook", '{"x":1}'],
      // 307 repeats the method and the body
      ["POST", "https://a.example.com/moved", '{"x":1}'],
      // 302 after a POST becomes a GET without a body
      ["GET", "https://b.example.com/next", null],
    ]);
    expect(asked[1]!.headers.get("authorization")).toBe("Bearer secret");
    // Leaving the origin drops the credentials.
    expect(asked[2]!.headers.get("authorization")).toBeNull();
    expect(asked[2]!.headers.get("content-type")).toBeNull();
  });

  it.each([
    "http://169.254.169.254/latest/meta-data/",
    "https://127.0.0.1/",
    "https://[::ffff:10.0.0.1]/",
    "https://localhost./admin",
    "https://metadata.google.internal/",
    "https://0x7f000001/",
    "http://public.example.com/",
  ])("refuses a redirect to %s without requesting it", async (location) => {
    const { asked, fetchStub } = stubFetch({ "https://a.example.com/": redirect(302, location) });
    const err = await guardedFetch(STRICT, fetchStub)("https://a.example.com/").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OutboundRefused);
    expect((err as Error).message).toContain("redirect from https://a.example.com refused");
    expect(asked.map((a) => a.url)).toEqual(["https://a.example.com/"]);
  });

  it(`stops after ${MAX_REDIRECTS} hops`, async () => {
    const answers: Record<string, () => Response> = {};
    for (let i = 0; i <= MAX_REDIRECTS + 1; i++) answers[`https://a.example.com/${i}`] = redirect(301, `/${i + 1}`);
    const { asked, fetchStub } = stubFetch(answers);
    await expect(guardedFetch(STRICT, fetchStub)("https://a.example.com/0")).rejects.toThrow(
      `more than ${MAX_REDIRECTS} redirects`,
    );
    expect(asked).toHaveLength(MAX_REDIRECTS + 1);
  });

  it("hands a 3xx back unfollowed when the caller follows redirects itself", async () => {
    const { asked, fetchStub } = stubFetch({ "https://a.example.com/": redirect(302, "https://127.0.0.1/") });
    const res = await guardedFetch(STRICT, fetchStub)("https://a.example.com/", { redirect: "manual" });
    expect(res.status).toBe(302);
    expect(asked).toHaveLength(1);
    // …and the caller's next request goes through the same check.
    await expect(guardedFetch(STRICT, fetchStub)(res.headers.get("location")!)).rejects.toThrow("loopback");
  });
});

describe("reply_url deliveries under the rule", () => {
  it("gives up at once (no retry) on a refused URL or redirect", async () => {
    const { asked, fetchStub } = stubFetch({ "https://r.example.com/": redirect(303, "http://10.1.2.3/") });
    const direct = await deliverSigned("https://192.168.0.10/", "id-1", { a: 1 }, "secret", STRICT, fetchStub);
    expect(direct).toMatchObject({ ok: false, retryable: false });
    const redirected = await deliverSigned("https://r.example.com/", "id-2", { a: 1 }, "secret", STRICT, fetchStub);
    expect(redirected).toMatchObject({ ok: false, retryable: false, error: expect.stringContaining("10.1.2.3") });
    expect(asked.map((a) => a.url)).toEqual(["https://r.example.com/"]);
  });
});
