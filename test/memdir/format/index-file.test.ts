import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import {
  capIndex,
  capIndexBytes,
  formatIndexLine,
  INDEX_MAX_BYTES,
  parseIndex,
  readIndex,
  removeIndexLine,
  upsertIndexLine,
} from "../../../src/memdir/format/index-file.ts";
import { makeTempDir } from "../../helpers/temp.ts";

describe("readIndex", () => {
  it("reads a missing index as empty", async () => {
    const index = await readIndex(makeTempDir());
    assert.equal(index.exists, false);
    assert.equal(index.content, "");
    assert.equal(index.truncated, false);
  });

  it("loads at most 200 lines and warns which limit fired", async () => {
    const dir = makeTempDir();
    const lines = Array.from({ length: 250 }, (_, i) => `- [M${i}](m${i}.md) — hook ${i}`);
    fs.writeFileSync(path.join(dir, "MEMORY.md"), `${lines.join("\n")}\n`);
    const index = await readIndex(dir);
    assert.equal(index.truncated, "lines");
    assert.equal(index.lines, 250);
    const content = index.content.split("\n");
    assert.equal(content[199], lines[199]);
    assert.ok(!index.content.includes("m200.md"));
    assert.match(content.at(-1) ?? "", /WARNING: MEMORY\.md is 250 lines \(limit 200\).*one short line/);
  });

  it("cuts at the last newline under 25,000 bytes", async () => {
    const dir = makeTempDir();
    const lines = Array.from({ length: 150 }, (_, i) => `- [M${i}](m${i}.md) — ${"长".repeat(60)} ${i}`);
    fs.writeFileSync(path.join(dir, "MEMORY.md"), lines.join("\n"));
    const index = await readIndex(dir);
    assert.equal(index.truncated, "bytes");
    const [kept, warning] = index.content.split("\n\n");
    assert.ok(Buffer.byteLength(kept) <= INDEX_MAX_BYTES);
    assert.ok(lines.includes(kept.split("\n").at(-1) ?? ""), "the last kept line is whole");
    assert.match(warning, /bytes \(limit 25000\)/);
  });
});

describe("a big index", () => {
  // The pieces a hostile MEMORY.md is made of: whitespace a trim strips (BOM, NBSP, U+3000,
  // U+2028, CRLF), multi-byte text, long lines without a newline, and a lone U+FFFD.
  const pieces = [
    "- [Memory](m.md) — a hook\n",
    "\r\n",
    "\n",
    " ",
    "\t",
    "\u00a0",
    "\u3000",
    "\u2028",
    "\ufeff",
    "长".repeat(40),
    "😀",
    "e\u0301",
    "x".repeat(3000),
    "\ufffd",
  ];
  const whitespace = [" ", "\n", "\r\n", "\u3000", "\u00a0", "\ufeff", "\u2028", "\t"];
  // An index of short pointer lines: its first 200 lines fit in 25,000 bytes, so lines cut it.
  const shortPieces = ["- [Memory](m.md) — a hook\n", "- [长](c.md) — 长\r\n", "😀 ", "\n"];
  const randomText = (random: () => number, short: boolean) => {
    const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)];
    const edge = (max: number) =>
      Array.from({ length: Math.floor(random() * max) }, () => pick(whitespace)).join("");
    const parts = [random() < 0.3 ? "\ufeff" : "", edge(random() < 0.1 ? 2000 : 20)];
    let size = 0;
    const target = 64 * 1024 + Math.floor(random() * 200_000);
    while (size < target) {
      const piece = pick(short ? shortPieces : pieces);
      parts.push(piece);
      size += piece.length;
    }
    parts.push(edge(random() < 0.1 ? 2000 : 20));
    return parts.join("");
  };

  it("is loaded exactly as the whole text would be, cut on its bytes", async () => {
    let seed = 17;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const dir = makeTempDir();
    const file = path.join(dir, "MEMORY.md");
    const kinds = new Set<string>();
    let byBytes = 0;
    for (let round = 0; round < 60; round++) {
      const text = randomText(random, round % 3 === 0);
      fs.writeFileSync(file, text);
      const index = await readIndex(dir);
      const expected = capIndex(text);
      assert.deepEqual(
        { content: index.content, truncated: index.truncated, lines: index.lines, bytes: index.bytes },
        {
          content: expected.content,
          truncated: expected.truncated,
          lines: expected.lines,
          bytes: expected.bytes,
        },
        `round ${round}`,
      );
      assert.deepEqual(index.limitsExceeded, expected.limitsExceeded);
      assert.equal(index.raw, text);
      kinds.add(String(index.truncated));
      // …and it was the byte path that loaded it (it gives up only on an end of whitespace).
      const onBytes = capIndexBytes(Buffer.from(text));
      if (onBytes !== null) {
        assert.deepEqual(onBytes, expected, `round ${round} on bytes`);
        byBytes++;
      }
    }
    assert.ok(byBytes >= 50, `${byBytes} of 60 texts were cut on their bytes`);
    assert.deepEqual([...kinds].sort(), ["bytes", "lines"], "both limits were tried");
  });

  it("reads an index that is not valid UTF-8 as its decoded text", async () => {
    const dir = makeTempDir();
    const lines = Array.from({ length: 5000 }, (_, i) => `- [M${i}](m${i}.md) — hook ${i}`).join("\n");
    const bytes = Buffer.concat([
      Buffer.from(lines.slice(0, 100)),
      Buffer.from([0xff, 0xc3]),
      Buffer.from(lines),
    ]);
    fs.writeFileSync(path.join(dir, "MEMORY.md"), bytes);
    const index = await readIndex(dir);
    const expected = capIndex(bytes.toString("utf8"));
    assert.equal(index.content, expected.content);
    assert.equal(index.bytes, expected.bytes);
    assert.equal(index.lines, expected.lines);
  });
});

describe("index lines", () => {
  it("formats and parses `- [Title](file.md) — hook`", () => {
    const line = formatIndexLine({ title: "Real DB", file: "feedback-real-database.md", hook: "no mocks" });
    assert.equal(line, "- [Real DB](feedback-real-database.md) — no mocks");
    assert.deepEqual(parseIndex(`# Index\n\n${line}\n`), [
      { title: "Real DB", file: "feedback-real-database.md", hook: "no mocks", lineNumber: 3 },
    ]);
  });

  it("round-trips awkward titles, file names and multi-line hooks", () => {
    const line = formatIndexLine({ title: "a [b] c", file: "sub dir/x (1).md", hook: "two\nlines" });
    assert.equal(line.split("\n").length, 1);
    const [entry] = parseIndex(line);
    assert.equal(entry.title, "a [b] c");
    assert.equal(entry.file, "sub dir/x (1).md");
    assert.equal(entry.hook, "two lines");
  });

  it("replaces the line of an existing file instead of duplicating it", () => {
    const text = "# Memory\n- [A](a.md) — old\n- [B](b.md) — b\n";
    const updated = upsertIndexLine(text, { title: "A2", file: "a.md", hook: "new" });
    assert.equal(updated, "# Memory\n- [A2](a.md) — new\n- [B](b.md) — b\n");
    const added = upsertIndexLine(updated, { title: "C", file: "c.md", hook: "c" });
    assert.equal(added, "# Memory\n- [A2](a.md) — new\n- [B](b.md) — b\n- [C](c.md) — c\n");
    assert.equal(upsertIndexLine("", { title: "A", file: "a.md" }), "- [A](a.md)\n");
  });

  it("removes every line pointing at a file and keeps the rest", () => {
    const text = "- [A](a.md) — a\n- [B](./b.md) — b\nprose\n- [A again](a.md)\n";
    assert.equal(removeIndexLine(text, "a.md"), "- [B](./b.md) — b\nprose\n");
    assert.equal(removeIndexLine(text, "b.md"), "- [A](a.md) — a\nprose\n- [A again](a.md)\n");
    assert.equal(removeIndexLine(text, "zzz.md"), text);
  });
});
