import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { parseFrontmatter } from "../../src/memdir/format/frontmatter.ts";
import { lineDiff } from "../../src/memdir/format/line-diff.ts";
import { memoryFlags, proposalFlags } from "../../src/ui/flags.ts";
import { renderMarkdown } from "../../src/ui/markdown.ts";
import { addAnchoredMemory } from "../helpers/anchored-memory.ts";

describe("renderMarkdown (a memory is untrusted text)", () => {
  it("shows raw HTML as text: no tag, attribute or event handler from a memory reaches the page", () => {
    const html = renderMarkdown(
      '<script>alert(1)</script>\n<img src=x onerror="alert(2)">\n<a href="javascript:alert(3)">x</a> "quoted" & \'single\'',
    );
    assert.doesNotMatch(html, /<script|<img|<a /);
    assert.match(html, /&lt;script&gt;alert\(1\)&lt;\/script&gt;/);
    assert.match(html, /&quot;quoted&quot; &amp; &#39;single&#39;/);
  });

  it("links only http(s) and mailto addresses, and a quote in one cannot leave its attribute", () => {
    assert.match(
      renderMarkdown("[docs](https://example.com/a?b=1&c=2)"),
      /<a href="https:\/\/example.com\/a\?b=1&amp;c=2" rel/,
    );
    assert.doesNotMatch(renderMarkdown("[x](javascript:alert(1))"), /<a/);
    assert.doesNotMatch(renderMarkdown("[x](data:text/html,hi)"), /<a/);
    assert.doesNotMatch(
      renderMarkdown('[x](https://e.com/"onmouseover="alert(1))'),
      /" onmouseover|"onmouseover="/,
    );
  });

  it("renders the subset memories use: headings, lists, code, bold, italic, quotes, [[links]]", () => {
    const html = renderMarkdown(
      "# Why\n\n- **real** database\n- not a *mock*\n\n1. first\n2. second\n\n```\n<b>code</b>\n```\n\n> quoted\n\nSee [[feedback-x]] and `a < b`.",
    );
    assert.match(html, /<h1>Why<\/h1>/);
    assert.match(html, /<ul><li><strong>real<\/strong> database<\/li><li>not a <em>mock<\/em><\/li><\/ul>/);
    assert.match(html, /<ol><li>first<\/li><li>second<\/li><\/ol>/);
    assert.match(html, /<pre><code>&lt;b&gt;code&lt;\/b&gt;<\/code><\/pre>/);
    assert.match(html, /<blockquote><p>quoted<\/p><\/blockquote>/);
    assert.match(html, /<span class="wikilink">\[\[feedback-x\]\]<\/span>/);
    assert.match(html, /<code>a &lt; b<\/code>/);
  });
});

describe("lineDiff", () => {
  it("keeps common lines and marks what was removed and added", () => {
    assert.deepEqual(lineDiff("a\nb\nc\n", "a\nx\nc\n"), [
      { op: " ", text: "a" },
      { op: "-", text: "b" },
      { op: "+", text: "x" },
      { op: " ", text: "c" },
    ]);
    assert.deepEqual(lineDiff(null, "new\n"), [{ op: "+", text: "new" }]);
    assert.deepEqual(lineDiff("gone\n", null), [{ op: "-", text: "gone" }]);
  });
});

describe("flags", () => {
  it("flags a sync conflict from conflictOf: and a quarantined proposal from its reason", async () => {
    assert.deepEqual(await memoryFlags("/m", "a.conflict-1f.md", { conflictOf: "a.md" }), [
      { kind: "conflict", message: "conflicts with a.md" },
    ]);
    assert.deepEqual(await memoryFlags("/m", "a.md", { description: "x" }), []);
    assert.deepEqual(proposalFlags({ reason: "looks like a prompt injection" }, []), [
      { kind: "quarantined", message: "quarantined: looks like a prompt injection" },
    ]);
    assert.deepEqual(proposalFlags({}, [{ conflictOf: "b.md" }]), [
      { kind: "conflict", message: "conflicts with b.md" },
    ]);
  });

  it("flags a memory whose anchored file vanished from the project", async () => {
    const { project, file } = await addAnchoredMemory();
    const frontmatter = () => parseFrontmatter(fs.readFileSync(file, "utf8")).data;
    assert.deepEqual(await memoryFlags(path.dirname(file), path.basename(file), frontmatter()), []);
    fs.rmSync(path.join(project, "src/auth/login.ts"));
    assert.deepEqual(await memoryFlags(path.dirname(file), path.basename(file), frontmatter()), [
      { kind: "stale-anchor", message: "src/auth/login.ts no longer exists" },
    ]);
  });
});
