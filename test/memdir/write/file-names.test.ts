// A memory's file name must be one that its index line carries back unchanged
// and that common file systems hold; MEMORY.md is the index in any case; index lines never break.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { isMemdirError } from "../../../src/errors.ts";
import { parseIndex } from "../../../src/memdir/format/index-file.ts";
import { scanHeaders } from "../../../src/memdir/scan/scan.ts";
import { removeMemory, saveMemory, writeMemoryText } from "../../../src/memdir/write/write.ts";
import { runCliInProcess } from "../../helpers/cli.ts";
import { makeTempDir } from "../../helpers/temp.ts";

const memoryText = "---\ndescription: notes\ntype: project\n---\nbody\n";

function memoryDir(): string {
  const dir = path.join(makeTempDir(), "memory");
  fs.mkdirSync(dir);
  return dir;
}

function listing(dir: string): string[] {
  return fs.readdirSync(dir, { recursive: true }).map(String).sort();
}

const REFUSED_NAMES: [string, RegExp][] = [
  ["<a>b.md", /has "<"/],
  ["a>b.md", /has ">"/],
  ["deploy: notes.md", /has ":"/],
  ['say "hi".md', /has """/],
  ["a|b.md", /has "\|"/],
  ["why?.md", /has "\?"/],
  ["all*.md", /has "\*"/],
  ["con.md", /reserved device name "con"/],
  ["team/NUL.md", /reserved device name "NUL"/],
  ["LPT1.notes.md", /reserved device name "LPT1"/],
  ["team./notes.md", /ending in a dot or a space/],
  ["team /notes.md", /ending in a dot or a space/],
  [`${"n".repeat(220)}.md`, /over 222 bytes/],
  [`${"数".repeat(74)}.md`, /over 222 bytes/],
  ["memory.md", /is the index/],
  ["team/Memory.MD", /is the index/],
];

describe("memory file names", () => {
  describe("refused by saveMemory and writeMemoryText, nothing written", () => {
    for (const [name, reason] of REFUSED_NAMES) {
      it(JSON.stringify(name), async () => {
        const dir = memoryDir();
        const before = listing(dir);
        const check = (error: unknown) => {
          assert.ok(isMemdirError(error, "invalid-input"), String(error));
          assert.match((error as Error).message, reason);
          return true;
        };
        await assert.rejects(
          saveMemory(dir, { file: name, type: "project", description: "notes", body: "b" }),
          check,
        );
        await assert.rejects(writeMemoryText(dir, name, memoryText), check);
        assert.deepEqual(listing(dir), before);
      });
    }
  });

  it("takes the longest name that leaves room for the writer's temp name (222 bytes)", async () => {
    const dir = memoryDir();
    const name = `${"n".repeat(219)}.md`;
    const saved = await saveMemory(dir, { file: name, type: "project", description: "notes", body: "b" });
    assert.equal(saved.file, name);
    assert.equal(parseIndex(fs.readFileSync(path.join(dir, "MEMORY.md"), "utf8"))[0].file, name);
  });

  it("normalizes a name to NFC, so a second save in the other spelling replaces the first", async () => {
    const dir = memoryDir();
    const decomposed = "project-cafe\u0301.md";
    const composed = "project-caf\u00e9.md";
    const first = await saveMemory(dir, {
      file: decomposed,
      type: "project",
      description: "notes",
      body: "a",
    });
    assert.equal(first.file, composed);
    const second = await saveMemory(dir, {
      file: composed,
      type: "project",
      description: "notes",
      body: "b",
    });
    assert.equal(second.created, false);
    assert.deepEqual(listing(dir), ["MEMORY.md", composed]);
    const entries = parseIndex(fs.readFileSync(path.join(dir, "MEMORY.md"), "utf8"));
    assert.deepEqual(
      entries.map((e) => e.file),
      [composed],
    );
    await removeMemory(dir, composed);
    assert.equal(fs.readFileSync(path.join(dir, "MEMORY.md"), "utf8"), "");
  });

  it("a memory.md in another case is not listed as a memory", async () => {
    const dir = memoryDir();
    fs.writeFileSync(path.join(dir, "memory.md"), memoryText);
    fs.writeFileSync(path.join(dir, "project-notes.md"), memoryText);
    const headers = await scanHeaders(dir);
    assert.deepEqual(
      headers.map((h) => h.file),
      ["project-notes.md"],
    );
  });

  it("keeps an index line on one line when a hook holds U+0085, U+2028 or U+2029", async () => {
    const dir = memoryDir();
    for (const [i, separator] of ["\u0085", "\u2028", "\u2029"].entries()) {
      await saveMemory(dir, {
        file: `project-${i}.md`,
        type: "project",
        description: `first part${separator}second part`,
        title: `Title${separator}${i}`,
        body: "b",
      });
    }
    const index = fs.readFileSync(path.join(dir, "MEMORY.md"), "utf8");
    assert.doesNotMatch(index, /[\u0085\u2028\u2029]/);
    const entries = parseIndex(index);
    assert.deepEqual(
      entries.map((e) => [e.file, e.hook]),
      [0, 1, 2].map((i) => [`project-${i}.md`, "first part second part"]),
    );
  });

  it("parses back a hand-written index line whose hook holds U+2028", () => {
    const [entry] = parseIndex("- [A](a.md) — one\u2028two\n");
    assert.equal(entry?.file, "a.md");
  });

  it("memdir add with a '>' in --file exits 1 and leaves doctor clean", async () => {
    const home = makeTempDir();
    const dir = memoryDir();
    await saveMemory(dir, { file: "project-ok.md", type: "project", description: "ok", body: "b" });
    const add = await runCliInProcess(
      ["add", "--dir", dir, "--type", "project", "--description", "x", "--file", "<a>b.md", "body"],
      { home },
    );
    assert.equal(add.code, 1);
    assert.match(add.stderr, /^memdir: .*has "<"/m);
    const doctor = await runCliInProcess(["doctor", "--dir", dir], { home });
    assert.equal(doctor.code, 0, doctor.stdout + doctor.stderr);
  });
});

describe("one spelling of a name for every operation", () => {
  const memoryFiles = (dir: string) =>
    fs.readdirSync(dir).filter((file) => file.endsWith(".md") && file !== "MEMORY.md");
  const NFC = "café.md";
  const NFD = "cafe\u0301.md";

  it("a delete in NFD removes the NFC file and its index line", async () => {
    const dir = path.join(makeTempDir(), "memory");
    await saveMemory(dir, {
      file: NFC,
      type: "user",
      description: "cafe order",
      body: "Orders a flat white.",
    });
    const removed = await removeMemory(dir, NFD);
    assert.equal(removed.file, NFC);
    assert.deepEqual(memoryFiles(dir), []);
    assert.ok(!fs.readFileSync(path.join(dir, "MEMORY.md"), "utf8").includes("caf"));
    await assert.rejects(removeMemory(dir, NFD), (error) => isMemdirError(error, "not-found"));
  });

  it("a replacing save in NFD replaces the NFC file; a file named in NFD on disk is reached in NFC", async () => {
    const dir = path.join(makeTempDir(), "memory");
    await saveMemory(dir, { file: NFC, type: "user", description: "cafe order", body: "Flat white." });
    await saveMemory(dir, {
      file: NFD,
      type: "user",
      description: "cafe order",
      body: "Cortado.",
      replace: true,
    });
    assert.deepEqual(memoryFiles(dir), [NFC]);
    assert.match(fs.readFileSync(path.join(dir, NFC), "utf8"), /Cortado/);

    const other = path.join(makeTempDir(), "memory");
    fs.mkdirSync(other, { recursive: true });
    fs.writeFileSync(path.join(other, NFD), "---\ndescription: by hand\ntype: user\n---\nOld.\n");
    await saveMemory(other, { file: NFC, type: "user", description: "by hand", body: "New.", replace: true });
    assert.deepEqual(memoryFiles(other), [NFD]);
    assert.match(fs.readFileSync(path.join(other, NFD), "utf8"), /New\./);
    await removeMemory(other, NFC);
    assert.deepEqual(memoryFiles(other), []);
  });
});
