import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import {
  formatIndexLine,
  INDEX_MAX_BYTES,
  parseIndex,
  readIndex,
  removeIndexLine,
  upsertIndexLine,
} from "../../src/memdir/index-file.ts";
import { makeTempDir } from "../helpers/temp.ts";

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
