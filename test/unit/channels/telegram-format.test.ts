import { describe, expect, it } from "vitest";
import { splitText } from "../../../durable-objects/channels/chat-content/split-text.js";
import { markdownToTelegramHtml } from "../../../durable-objects/channels/platforms/telegram/format.js";

describe("Markdown to Telegram HTML", () => {
  it("escapes what HTML would read, everywhere", () => {
    expect(markdownToTelegramHtml("a < b && c > d")).toBe("a &lt; b &amp;&amp; c &gt; d");
    expect(markdownToTelegramHtml("`x<y>`")).toBe("<code>x&lt;y&gt;</code>");
  });

  it("converts emphasis, links, headings and lists; leaves snake_case and lone markers alone", () => {
    expect(markdownToTelegramHtml("**bold** and *it* and _it_ and ~~gone~~")).toBe(
      "<b>bold</b> and <i>it</i> and <i>it</i> and <s>gone</s>",
    );
    expect(markdownToTelegramHtml("see [docs](https://example.com/a?b=1&c=2)")).toBe(
      'see <a href="https://example.com/a?b=1&amp;c=2">docs</a>',
    );
    expect(markdownToTelegramHtml("# Title\n- one\n* two")).toBe("<b>Title</b>\n• one\n• two");
    expect(markdownToTelegramHtml("call get_current_time now, 2 * 3 = 6")).toBe("call get_current_time now, 2 * 3 = 6");
  });

  it("keeps code blocks verbatim with their language, and closes one still streaming", () => {
    expect(markdownToTelegramHtml("```sh\nls **not bold** <x>\n```")).toBe(
      '<pre><code class="language-sh">ls **not bold** &lt;x&gt;</code></pre>',
    );
    expect(markdownToTelegramHtml("text\n```\nhalf")).toBe("text\n<pre>half</pre>");
  });
});

describe("splitting long answers", () => {
  it("leaves a short answer whole and cuts a long one at line breaks within the limit", () => {
    expect(splitText("short", 100)).toEqual(["short"]);
    const lines = Array.from({ length: 30 }, (_, i) => `line ${i} ${"x".repeat(20)}`).join("\n");
    const parts = splitText(lines, 200);
    expect(parts.length).toBeGreaterThan(1);
    for (const p of parts) expect(p.length).toBeLessThanOrEqual(200);
    expect(parts.join("\n")).toBe(lines);
  });

  it("closes a code block cut in two and opens it again in the next part", () => {
    const code = `\`\`\`py\n${Array.from({ length: 20 }, (_, i) => `print(${i})`).join("\n")}\n\`\`\``;
    const parts = splitText(code, 80);
    expect(parts.length).toBeGreaterThan(1);
    for (const p of parts) {
      expect(p.length).toBeLessThanOrEqual(80);
      expect((p.match(/```/g) ?? []).length % 2).toBe(0);
    }
    expect(parts[1]!.startsWith("```py\n")).toBe(true);
  });

  it("cuts a run without spaces hard", () => {
    const parts = splitText("y".repeat(250), 100);
    expect(parts.map((p) => p.length)).toEqual([96, 96, 58]);
  });
});
