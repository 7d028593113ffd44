import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { HeaderCache } from "../../../src/memdir/scan/header-cache.ts";
import { formatManifest, isoTime, manifestLine, scanHeaders } from "../../../src/memdir/scan/scan.ts";
import { memory } from "../../helpers/memory.ts";
import { makeTempDir, sharedDir, writeTree } from "../../helpers/temp.ts";

function setMtime(file: string, iso: string): void {
  fs.utimesSync(file, new Date(iso), new Date(iso));
}

describe("scanHeaders", () => {
  it("finds every *.md at any depth except MEMORY.md, newest first", async () => {
    const dir = makeTempDir();
    writeTree(dir, {
      "MEMORY.md": "- [A](a.md) — a\n",
      "a.md": memory("first", "body", "user"),
      "team/b.md": memory("second", "body", "feedback"),
      "team/MEMORY.md": "- [B](b.md) — sub-index\n",
      "notes.txt": "not a memory",
      ".git/HEAD.md": memory("inside a dot folder", "body", "user"),
    });
    setMtime(path.join(dir, "a.md"), "2026-01-01T00:00:00Z");
    setMtime(path.join(dir, "team/b.md"), "2026-01-02T00:00:00Z");
    const headers = await scanHeaders(dir, { cache: null });
    assert.deepEqual(
      headers.map((h) => [h.file, h.type, h.description]),
      [
        ["team/b.md", "feedback", "second"],
        ["a.md", "user", "first"],
      ],
    );
    assert.equal(headers[0].path, path.join(dir, "team/b.md"));
  });

  it("keeps only the newest `limit` headers", async () => {
    const dir = makeTempDir();
    for (let i = 0; i < 5; i++) {
      writeTree(dir, { [`m${i}.md`]: memory(`memory ${i}`, "body", "project") });
      setMtime(path.join(dir, `m${i}.md`), `2026-01-0${i + 1}T00:00:00Z`);
    }
    const headers = await scanHeaders(dir, { limit: 2, cache: null });
    assert.deepEqual(
      headers.map((h) => h.file),
      ["m4.md", "m3.md"],
    );
  });

  it("sees frontmatter only when it opens on line 1 and closes within 30 lines", async () => {
    const dir = makeTempDir();
    // Line 1 opens, line 2 is the type, lines 3-29 are tags: `---` closes on line 30.
    const tags = Array.from({ length: 27 }, (_, i) => `tag${i}: x`).join("\n");
    writeTree(dir, {
      "closes-on-30.md": `---\ntype: user\n${tags}\n---\nbody\n`,
      "closes-on-31.md": `---\ntype: user\n${tags}\nextra: 1\n---\nbody\n`,
      "late-open.md": `\n---\ntype: user\ndescription: late\n---\n`,
      "plain.md": "just text\n",
    });
    const byFile = new Map((await scanHeaders(dir, { cache: null })).map((h) => [h.file, h]));
    assert.equal(byFile.get("closes-on-30.md")?.type, "user");
    assert.equal(byFile.get("closes-on-31.md")?.type, null);
    assert.equal(byFile.get("late-open.md")?.type, null);
    assert.equal(byFile.get("plain.md")?.description, null);
  });

  it("handles BOM, CRLF and quoted values", async () => {
    const dir = makeTempDir();
    writeTree(dir, {
      "crlf.md": '\uFEFF---\r\ndescription: "a: quoted value"\r\ntype: reference\r\n---\r\nbody\r\n',
    });
    const [header] = await scanHeaders(dir, { cache: null });
    assert.equal(header.type, "reference");
    assert.equal(header.description, "a: quoted value");
  });

  it("reads only the head of a huge file", async () => {
    const dir = makeTempDir();
    const big = `${memory("huge file", "body", "user")}${"x".repeat(1024)}\n`.repeat(1);
    fs.writeFileSync(path.join(dir, "huge.md"), big);
    // Append 50 MB of a single line: a whole-file read would take visibly long and lots of memory.
    const handle = fs.openSync(path.join(dir, "huge.md"), "a");
    const block = Buffer.alloc(1024 * 1024, 0x61);
    for (let i = 0; i < 50; i++) fs.writeSync(handle, block);
    fs.closeSync(handle);
    const [header] = await scanHeaders(dir, { cache: null });
    assert.equal(header.description, "huge file");
  });

  it("skips unreadable files and symlinks that leave the directory or loop", async (t) => {
    const dir = makeTempDir();
    const outside = makeTempDir();
    writeTree(dir, {
      "ok.md": memory("readable", "body", "user"),
      "locked.md": memory("locked", "body", "user"),
    });
    writeTree(outside, { "secret.md": memory("outside the memory dir", "body", "user") });
    fs.symlinkSync(path.join(outside, "secret.md"), path.join(dir, "leak.md"));
    fs.symlinkSync(outside, path.join(dir, "linked-folder"));
    fs.symlinkSync(dir, path.join(dir, "loop"));
    // A link to another memory of the dir is that memory twice: left out. A link to a file no
    // listing holds (in a dot-folder) is the only way to it: listed under the link's name.
    fs.symlinkSync(path.join(dir, "ok.md"), path.join(dir, "alias.md"));
    fs.mkdirSync(path.join(dir, ".kept"));
    fs.writeFileSync(path.join(dir, ".kept", "hidden.md"), memory("kept in a dot-folder", "body", "user"));
    fs.symlinkSync(path.join(dir, ".kept", "hidden.md"), path.join(dir, "shown.md"));
    fs.symlinkSync(path.join(dir, "self.md"), path.join(dir, "self.md"));
    spawnSync("mkfifo", [path.join(dir, "fifo.md")]); // a non-regular file; skipped if mkfifo is missing
    fs.chmodSync(path.join(dir, "locked.md"), 0o000);
    const headers = await scanHeaders(dir, { cache: null });
    const files = headers.map((h) => h.file).sort();
    if (process.getuid?.() === 0) t.diagnostic("running as root: locked.md stays readable");
    const expected = process.getuid?.() === 0 ? ["locked.md", "ok.md", "shown.md"] : ["ok.md", "shown.md"];
    assert.deepEqual(files, expected);
  });

  it("yields nothing for a missing directory", async () => {
    const dir = makeTempDir();
    assert.deepEqual(await scanHeaders(path.join(dir, "nope"), { cache: null }), []);
  });

  it("re-reads no file on a rescan of an unchanged directory, and re-reads a changed one", async () => {
    const dir = makeTempDir();
    writeTree(dir, { "a.md": memory("aaaa", "body", "user"), "b.md": memory("bbbb", "body", "user") });
    const cache = new HeaderCache();
    await scanHeaders(dir, { cache });
    assert.equal(cache.reads, 2);
    // Same size and mtime: the cache must answer, so the old description is still reported.
    const file = path.join(dir, "a.md");
    setMtime(file, "2026-01-01T00:00:00Z");
    await scanHeaders(dir, { cache });
    assert.equal(cache.reads, 3, "a touched file is read again");
    fs.writeFileSync(file, memory("AAAA", "body", "user"));
    setMtime(file, "2026-01-01T00:00:00Z");
    const again = await scanHeaders(dir, { cache });
    assert.equal(cache.reads, 3);
    assert.equal(again.find((h) => h.file === "a.md")?.description, "aaaa");
    fs.writeFileSync(file, memory("changed and longer", "body", "user"));
    const third = await scanHeaders(dir, { cache });
    assert.equal(cache.reads, 4);
    assert.equal(third.find((h) => h.file === "a.md")?.description, "changed and longer");
  });

  it("matches gen-scale's manifest for every one of 2,000 files", async (t) => {
    const shared = sharedDir();
    if (!shared) {
      t.skip("../shared/bench is absent: cannot generate the 2,000-file directory");
      return;
    }
    const out = path.join(makeTempDir(), "mem");
    const gen = spawnSync(process.execPath, [
      path.join(shared, "bench/gen-scale.mjs"),
      "--n",
      "2000",
      "--out",
      out,
    ]);
    assert.equal(gen.status, 0, gen.stderr.toString());
    const manifest = fs
      .readFileSync(`${out}.manifest.jsonl`, "utf8")
      .trim()
      .split("\n")
      .map(
        (line) =>
          JSON.parse(line) as {
            path: string;
            mtime: string;
            type: string | null;
            description: string | null;
          },
      );
    const cache = new HeaderCache();
    const headers = await scanHeaders(out, { cache });
    const byFile = new Map(headers.map((h) => [h.file, h]));
    assert.equal(headers.length, manifest.length, "one header per memory file, nothing else");
    const wrong = manifest.filter((entry) => {
      const h = byFile.get(entry.path);
      return (
        !h ||
        h.type !== entry.type ||
        h.description !== entry.description ||
        isoTime(h.mtimeMs) !== entry.mtime
      );
    });
    assert.deepEqual(wrong.slice(0, 3), [], `${wrong.length} files differ from the manifest`);
    for (let i = 1; i < headers.length; i++) assert.ok(headers[i - 1].mtimeMs >= headers[i].mtimeMs);
    await scanHeaders(out, { cache });
    assert.equal(cache.reads, manifest.length, "the warm rescan read no file again");
  });
});

describe("manifestLine", () => {
  it("formats `- [type] file (ISO mtime): description`", () => {
    const mtimeMs = Date.parse("2026-01-03T10:00:00Z");
    assert.equal(
      manifestLine({
        file: "feedback-real-database.md",
        mtimeMs,
        type: "feedback",
        description: "no DB mocks",
      }),
      "- [feedback] feedback-real-database.md (2026-01-03T10:00:00.000Z): no DB mocks",
    );
  });

  it("leaves out what the header lacks instead of printing placeholders", () => {
    const mtimeMs = Date.parse("2026-01-03T10:00:00Z") - 0.001;
    assert.equal(
      formatManifest([{ file: "x.md", path: "/m/x.md", size: 1, mtimeMs, type: null, description: null }]),
      "- x.md (2026-01-03T10:00:00.000Z)",
    );
  });
});
