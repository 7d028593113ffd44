import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { isMemdirError } from "../../../src/errors.ts";
import { readMemoryCapped } from "../../../src/memdir/fs/read.ts";
import { makeTempDir } from "../../helpers/temp.ts";

describe("readMemoryCapped", () => {
  it("returns a small file whole, with no note", async () => {
    const file = path.join(makeTempDir(), "small.md");
    fs.writeFileSync(file, "---\ntype: user\ndescription: x\n---\nhello\n");
    const read = await readMemoryCapped(file);
    assert.equal(read.truncated, false);
    assert.equal(read.content, "---\ntype: user\ndescription: x\n---\nhello\n");
  });

  it("cuts at 200 lines and says so, naming the full path", async () => {
    const file = path.join(makeTempDir(), "long.md");
    fs.writeFileSync(file, Array.from({ length: 300 }, (_, i) => `l${i}`).join("\n"));
    const read = await readMemoryCapped(file);
    assert.equal(read.truncated, "lines");
    const [text, note] = read.content.split("\n\n> ");
    assert.equal(text.split("\n").length, 200);
    assert.match(note, /200-line limit/);
    assert.ok(note.includes(file), "the note names the full path");
  });

  it("keeps a file of exactly 200 lines whole", async () => {
    const file = path.join(makeTempDir(), "exact.md");
    fs.writeFileSync(file, `${Array.from({ length: 200 }, () => "x").join("\n")}\n`);
    assert.equal((await readMemoryCapped(file)).truncated, false);
  });

  it("cuts at 4096 bytes without splitting a UTF-8 character", async () => {
    const file = path.join(makeTempDir(), "wide.md");
    fs.writeFileSync(file, "数据库".repeat(2000)); // 3-byte characters, one long line
    const read = await readMemoryCapped(file);
    assert.equal(read.truncated, "bytes");
    assert.ok(read.bytes <= 4096 && read.bytes > 4090);
    const [text, note] = read.content.split("\n\n> ");
    assert.ok(!text.includes("\uFFFD"), "no broken character");
    assert.equal(Buffer.byteLength(text), read.bytes);
    assert.match(note, /4096-byte limit/);
    assert.ok(note.includes(file));
  });

  it("reads only the start of a 50 MB file", async () => {
    const file = path.join(makeTempDir(), "huge.md");
    const handle = fs.openSync(file, "w");
    const block = Buffer.alloc(1024 * 1024, 0x61);
    for (let i = 0; i < 50; i++) fs.writeSync(handle, block);
    fs.closeSync(handle);
    const read = await readMemoryCapped(file);
    assert.equal(read.truncated, "bytes");
    assert.equal(read.bytes, 4096);
    assert.equal(read.fileBytes, 50 * 1024 * 1024);
  });

  it("reports a missing file as not-found", async () => {
    await assert.rejects(readMemoryCapped(path.join(makeTempDir(), "nope.md")), (e) =>
      isMemdirError(e, "not-found"),
    );
  });
});
