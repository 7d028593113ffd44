/**
 * A small, safe markdown renderer for memory bodies (docs/ui.md#markdown). A memory is untrusted
 * text (an agent wrote it from a conversation), so everything is escaped first and only a fixed
 * subset becomes markup: headings, paragraphs, lists, quotes, fenced and inline code, bold,
 * italic, rules, links with an http(s) or mailto address, and `[[name]]` links between memories.
 * Raw HTML in a memory is shown as text, never interpreted.
 */

const ESCAPES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

/** `text` with `& < > " '` escaped for HTML text and attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => ESCAPES[char]);
}

// Placeholders for code spans while the other inline rules run (a private-use character).
const HOLE = "\uE000";

/** Inline markup of one line of text (escaped here). */
function renderInline(raw: string): string {
  const codes: string[] = [];
  let text = raw.replace(/`([^`]+)`/g, (_match, code: string) => {
    codes.push(`<code>${escapeHtml(code)}</code>`);
    return `${HOLE}${codes.length - 1}${HOLE}`;
  });
  text = escapeHtml(text);
  text = text.replace(/\[\[([^\]\n]+)\]\]/g, '<span class="wikilink">[[$1]]</span>');
  text = text.replace(/\[([^\]\n]+)\]\(([^)\s]+)\)/g, (match, label: string, href: string) => {
    // The address was escaped with the rest; only these schemes become links.
    if (!/^(https?:\/\/|mailto:)/i.test(href)) return match;
    return `<a href="${href}" rel="noopener noreferrer" target="_blank">${label}</a>`;
  });
  text = text.replace(/\*\*([^*\n]+)\*\*/g, "<strong>$1</strong>");
  text = text.replace(/(^|[^*\w])\*([^*\n]+)\*(?!\w)/g, "$1<em>$2</em>");
  text = text.replace(/(^|[^_\w])_([^_\n]+)_(?!\w)/g, "$1<em>$2</em>");
  return text.replace(
    new RegExp(`${HOLE}(\\d+)${HOLE}`, "g"),
    (_match, index: string) => codes[Number(index)],
  );
}

type ListKind = "ul" | "ol";

/**
 * HTML for a markdown body: safe to insert as the inner HTML of an element.
 *
 * @example
 * renderMarkdown("**Why:** a mocked test passed <script>alert(1)</script>");
 * // "<p><strong>Why:</strong> a mocked test passed &lt;script&gt;alert(1)&lt;/script&gt;</p>"
 */
export function renderMarkdown(markdown: string): string {
  const out: string[] = [];
  const lines = markdown.replace(/\r\n?/g, "\n").split("\n");
  let paragraph: string[] = [];
  let list: { kind: ListKind; items: string[] } | null = null;
  let quote: string[] = [];
  const flushParagraph = () => {
    if (paragraph.length > 0) out.push(`<p>${paragraph.map(renderInline).join("<br>")}</p>`);
    paragraph = [];
  };
  const flushList = () => {
    if (list)
      out.push(`<${list.kind}>${list.items.map((item) => `<li>${item}</li>`).join("")}</${list.kind}>`);
    list = null;
  };
  const flushQuote = () => {
    if (quote.length > 0) out.push(`<blockquote>${renderMarkdown(quote.join("\n"))}</blockquote>`);
    quote = [];
  };
  const flushAll = () => {
    flushParagraph();
    flushList();
    flushQuote();
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const fence = /^\s*(```|~~~)/.exec(line);
    if (fence) {
      flushAll();
      const code: string[] = [];
      for (i++; i < lines.length && !lines[i].trimStart().startsWith(fence[1]); i++) code.push(lines[i]);
      out.push(`<pre><code>${escapeHtml(code.join("\n"))}</code></pre>`);
      continue;
    }
    if (/^\s*>/.test(line)) {
      flushParagraph();
      flushList();
      quote.push(line.replace(/^\s*>\s?/, ""));
      continue;
    }
    flushQuote();
    if (line.trim() === "") {
      flushAll();
      continue;
    }
    const heading = /^(#{1,6})\s+(.*)$/.exec(line);
    if (heading) {
      flushAll();
      const level = heading[1].length;
      out.push(`<h${level}>${renderInline(heading[2].replace(/\s#+\s*$/, ""))}</h${level}>`);
      continue;
    }
    if (/^\s*([-*_])(\s*\1){2,}\s*$/.test(line)) {
      flushAll();
      out.push("<hr>");
      continue;
    }
    const item = /^\s*(?:([-*+])|(\d+)[.)])\s+(.*)$/.exec(line);
    if (item) {
      flushParagraph();
      const kind: ListKind = item[1] ? "ul" : "ol";
      if (list && list.kind !== kind) flushList();
      list ??= { kind, items: [] };
      list.items.push(renderInline(item[3]));
      continue;
    }
    if (list && /^\s+\S/.test(line)) {
      list.items[list.items.length - 1] += ` ${renderInline(line.trim())}`;
      continue;
    }
    flushList();
    paragraph.push(line);
  }
  flushAll();
  return out.join("\n");
}
