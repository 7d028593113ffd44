import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";

// The design lives in the repository: comments cite `docs/design.md#<anchor>`, and the
// README and docs pages link each other. These checks keep every such reference pointing somewhere.

const root = path.resolve(import.meta.dirname, "..");
const codeFolders = ["src", "test", "bench", "demo", "scripts"];

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to `-`, repeats numbered. */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fenced = false;
  for (const line of markdown.split("\n")) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    const heading = fenced ? null : /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const base = heading[1]
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, "")
      .replace(/\s/g, "-");
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

function filesUnder(folder: string, extensions: string[]): string[] {
  const absolute = path.join(root, folder);
  if (!fs.existsSync(absolute)) return [];
  return fs
    .readdirSync(absolute, { recursive: true })
    .map(String)
    .filter((file) => extensions.some((extension) => file.endsWith(extension)))
    .map((file) => path.join(absolute, file));
}

const codeFiles = codeFolders.flatMap((folder) => filesUnder(folder, [".ts", ".mjs", ".js"]));
const pages = [path.join(root, "README.md"), ...filesUnder("docs", [".md"])];

describe("docs/design.md", () => {
  const designAnchors = anchorsOf(fs.readFileSync(path.join(root, "docs", "design.md"), "utf8"));

  it("has a section for every anchor the code cites", () => {
    const missing: string[] = [];
    for (const file of codeFiles) {
      const text = fs.readFileSync(file, "utf8");
      for (const match of text.matchAll(/docs\/design\.md#([\w-]+)/g)) {
        if (!designAnchors.has(match[1])) missing.push(`${path.relative(root, file)}: #${match[1]}`);
      }
    }
    assert.deepEqual(missing, []);
  });

  it("replaces the out-of-repo spec: no comment cites it any more", () => {
    const citation = ["SPEC", "§"].join(" ");
    const citing = codeFiles.filter((file) => fs.readFileSync(file, "utf8").includes(citation));
    assert.deepEqual(
      citing.map((file) => path.relative(root, file)),
      [],
    );
  });
});

describe("README and docs pages", () => {
  it("link only to files and headings that exist", () => {
    const broken: string[] = [];
    for (const page of pages) {
      // Code blocks and spans show link syntax (`- [Title](file.md)`) without being links.
      const text = fs
        .readFileSync(page, "utf8")
        .replace(/```[\s\S]*?```/g, "")
        .replace(/`[^`\n]*`/g, "");
      for (const match of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        const target = match[1];
        if (/^[a-z]+:/.test(target)) continue;
        const [file, anchor] = target.split("#");
        const resolved = file === "" ? page : path.resolve(path.dirname(page), file);
        if (!fs.existsSync(resolved)) {
          broken.push(`${path.relative(root, page)}: ${target}`);
          continue;
        }
        if (anchor && resolved.endsWith(".md") && !anchorsOf(fs.readFileSync(resolved, "utf8")).has(anchor)) {
          broken.push(`${path.relative(root, page)}: ${target}`);
        }
      }
    }
    assert.deepEqual(broken, []);
  });
});
