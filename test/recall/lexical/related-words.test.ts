import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { HeaderCache } from "../../../src/memdir/scan/header-cache.ts";
import { scanHeaders } from "../../../src/memdir/scan/scan.ts";
import { LexicalIndexCache } from "../../../src/recall/lexical/index/lexical-index.ts";
import type { LexicalPick } from "../../../src/recall/lexical/index/types.ts";
import { tokenize } from "../../../src/recall/lexical/text/tokenize.ts";
import { decodeTermTable, encodeTermTable, rowTermsOf } from "../../../src/recall/lexical/text/word-terms.ts";
import {
  bundledWordVectors,
  decodeWordVectors,
  encodeWordVectors,
  readWordVectors,
  readWordVectorsOrNull,
  termTableFileOf,
  type WordVectors,
} from "../../../src/recall/lexical/text/word-vectors.ts";
import { createLexicalSelector } from "../../../src/recall/select-lexical.ts";
import { memory } from "../../helpers/memory.ts";
import { makeTempDir, writeTree } from "../../helpers/temp.ts";

async function select(memoryDir: string, query: string, wordVectors: WordVectors | null, k = 1) {
  const headers = await scanHeaders(memoryDir, { cache: new HeaderCache() });
  const selector = createLexicalSelector({ cache: new LexicalIndexCache(), wordVectors });
  return (await selector.select({ query, headers, k, memoryDir })).picks as LexicalPick[];
}

/** Notes about one user: only one answers a question that repeats none of its words but "user". */
function userNotes(dir: string): void {
  writeTree(dir, {
    "user-dog.md": memory("the user's dog", "The user walks Biscuit, a beagle, every morning.", "user"),
    "user-coffee.md": memory(
      "the user's coffee",
      "The user drinks oat-milk coffee; the user hates sugar.",
      "user",
    ),
    "user-editor.md": memory("the user's editor", "The user edits in neovim with vim keybindings.", "user"),
  });
}

const term = (word: string) => tokenize(word)[0];

describe("related words (bundled word vectors)", () => {
  const vectors = bundledWordVectors();

  it("ships with the package and relates words that share no letters", () => {
    assert.ok(vectors, "data/word-vectors.bin should be found from the module's package root");
    const similarity = (a: string, b: string) =>
      vectors.similarity(vectors.rowOf(term(a)), vectors.rowOf(term(b)));
    assert.ok(similarity("liberal", "conservative") > 0.8);
    assert.ok(similarity("pets", "dogs") > 0.6);
    assert.ok(similarity("martial", "karate") > 0.5);
    assert.ok(similarity("liberal", "camping") < 0.35, "unrelated words fall under the threshold");
    // Rare names and CJK have no vector: they only ever match exactly.
    assert.equal(vectors.rowOf(term("Biscuitson")), -1);
    assert.equal(vectors.rowOf("数据库"), -1);
    // One row per search term: every form of a word finds the same vector.
    assert.equal(vectors.rowOf(term("painted")), vectors.rowOf(term("painting")));
  });

  it("finds the memory that answers with a related word, which word matching alone misses", async () => {
    const dir = makeTempDir();
    userNotes(dir);
    const query = "Which pets does the user have?";
    const plain = await select(dir, query, null);
    assert.notEqual(plain[0].file, "user-dog.md", "by shared words alone the dog note is not the best");
    assert.doesNotMatch(plain[0].reason, /related:/);
    const picks = await select(dir, query, vectors, 3);
    assert.equal(picks[0].file, "user-dog.md");
    assert.match(picks[0].reason, /related: pets≈(dog|beagle)/);
    // Named only when a related word added to the score: nothing in the editor note relates to pets.
    const editor = picks.find((pick) => pick.file === "user-editor.md");
    assert.ok(editor && !editor.reason.includes("related:"), editor?.reason);
  });

  it("keeps working when the query has more words than the stage weighs", async () => {
    const dir = makeTempDir();
    userNotes(dir);
    const query =
      "Before the quarterly planning meeting tomorrow afternoon, remind me which pets the user " +
      "owns, whether anything changed recently, and what breed and name the animal has";
    const picks = await select(dir, query, vectors, 3);
    assert.equal(picks[0].file, "user-dog.md");
    for (const pick of picks) assert.ok(Number.isFinite(pick.score), `${pick.file}: ${pick.score}`);
  });

  it("gives the same picks for a directory after another directory was ranked (shared buffers)", async () => {
    const small = makeTempDir();
    userNotes(small);
    const large = makeTempDir();
    const files: Record<string, string> = {};
    for (let i = 0; i < 60; i++)
      files[`note-${i}.md`] = memory(
        `note ${i}`,
        `The user owns ${i} cats, ${i} parrots and word${i} gadgets.`,
        "user",
      );
    writeTree(large, files);
    const headers = await scanHeaders(small, { cache: new HeaderCache() });
    const selector = createLexicalSelector({ cache: new LexicalIndexCache(), wordVectors: vectors });
    const query = "Which pets does the user have?";
    const first = await selector.select({ query, headers, k: 3, memoryDir: small });
    const largeHeaders = await scanHeaders(large, { cache: new HeaderCache() });
    assert.ok(
      (await selector.select({ query, headers: largeHeaders, k: 3, memoryDir: large })).picks.length > 0,
    );
    assert.deepEqual(await selector.select({ query, headers, k: 3, memoryDir: small }), first);
  });

  it("leaves queries without English content words as they were (the worked example is Chinese)", async () => {
    const dir = makeTempDir();
    writeTree(dir, {
      "feedback-db.md": memory(
        "登录模块的集成测试不得 mock 数据库",
        "登录模块的集成测试必须连接真实数据库。",
        "user",
      ),
      "project-auth.md": memory("认证模块迁移到新的会话服务", "认证迁移在三月完成。", "user"),
    });
    const query = "修复登录测试";
    assert.deepEqual(await select(dir, query, vectors, 5), await select(dir, query, null, 5));
  });

  it("adds no pick for a query that shares no word with any memory", async () => {
    const dir = makeTempDir();
    userNotes(dir);
    assert.deepEqual(
      await select(dir, "Which programming language does the compiler target?", vectors, 5),
      [],
    );
  });
});

describe("word-vector files", () => {
  it("round-trip through the file format", () => {
    const file = path.join(makeTempDir(), "vectors.bin");
    fs.writeFileSync(
      file,
      encodeWordVectors(
        ["cats", "dogs", "taxes"],
        [
          [1, 0.9, 0],
          [0.9, 1, 0.1],
          [0, 0, 1],
        ],
        3,
      ),
    );
    const vectors = readWordVectors(file);
    assert.equal(vectors.size, 3);
    const row = (word: string) => vectors.rowOf(term(word));
    assert.ok(
      vectors.similarity(row("cat"), row("dog")) > 0.95,
      "looked up by search term, so 'cat' finds 'cats'",
    );
    assert.ok(vectors.similarity(row("cat"), row("tax")) < 0.1);
    assert.ok(Math.abs(vectors.similarity(row("tax"), row("tax")) - 1) < 1e-6);
  });

  it("ships a term table that is exactly what the tokenizer makes of the bundled words (else: node --import tsx scripts/build-word-terms.ts)", () => {
    const bin = fs.readFileSync(path.resolve("data/word-vectors.bin"));
    const rowCount = bin.readUInt32LE(7);
    const wordList = bin.subarray(15, 15 + bin.readUInt32LE(11));
    const words = wordList.toString("utf8").split("\n");
    const shipped = decodeTermTable(
      fs.readFileSync(termTableFileOf(path.resolve("data/word-vectors.bin"))),
      wordList,
      rowCount,
    );
    assert.ok(shipped, "data/word-vectors.terms does not fit the words or this code: rebuild it");
    const terms = rowTermsOf(words);
    assert.deepEqual(
      Array.from({ length: rowCount }, (_, row) => shipped.termOf(row)),
      terms,
      "data/word-vectors.terms is stale: rebuild it",
    );
    // Every term finds its row through the hash table, and the bundled vectors use the table.
    const vectors = bundledWordVectors();
    assert.ok(vectors);
    const mapped = new Map(terms.flatMap((term, row) => (term === "" ? [] : [[term, row] as const])));
    for (const [term, row] of mapped) assert.equal(shipped.rowOf(term), row, term);
    assert.equal(shipped.size, mapped.size);
    assert.equal(vectors.size, mapped.size);
    assert.equal(vectors.word(vectors.rowOf(term("liberal"))), "liberal");
  });

  it("finds the same rows with a term table as without, and ignores a table made for other words or torn", () => {
    const words = ["cats", "cat", "the", "running", "runs", "tax", "café"];
    const rows = words.map((_, i) => words.map((__, j) => (i === j ? 1 : 0.1)));
    const buffer = encodeWordVectors(words, rows, words.length);
    const without = decodeWordVectors(buffer);
    const table = encodeTermTable(words);
    const withTable = decodeWordVectors(buffer, "x.bin", table);
    const foreign = decodeWordVectors(
      buffer,
      "x.bin",
      encodeTermTable(["dogs", "dog", "a", "x", "y", "z", "w"]),
    );
    const torn = decodeWordVectors(buffer, "x.bin", table.subarray(0, table.length - 1));
    const unaligned = Buffer.alloc(table.length + 1);
    table.copy(unaligned, 1);
    const shifted = decodeWordVectors(buffer, "x.bin", unaligned.subarray(1));
    for (const vectors of [withTable, foreign, torn, shifted]) {
      assert.equal(vectors.size, without.size);
      assert.equal(vectors.rowCount, without.rowCount);
      for (const word of [...words, "dog", "run", "zebra", ""])
        assert.equal(vectors.rowOf(term(word) ?? ""), without.rowOf(term(word) ?? ""), word);
      for (let row = 0; row < words.length; row++) assert.equal(vectors.word(row), without.word(row));
      assert.equal(vectors.similarity(0, 5), without.similarity(0, 5));
    }
    const wordList = buffer.subarray(15, 15 + buffer.readUInt32LE(11));
    assert.ok(decodeTermTable(table, wordList, words.length), "the table fits its words");
    assert.equal(decodeTermTable(table.subarray(0, table.length - 1), wordList, words.length), undefined);
    const otherVersion = Buffer.from(table);
    otherVersion.writeUInt8(9, 4);
    assert.equal(decodeTermTable(otherVersion, wordList, words.length), undefined);
  });

  it("refuses a file that is not one, is truncated or is of an unknown version, naming it", () => {
    const good = encodeWordVectors(
      ["cats", "dogs"],
      [
        [1, 0],
        [0, 1],
      ],
      2,
    );
    assert.throws(
      () => decodeWordVectors(Buffer.from("hello world, not vectors"), "x.bin"),
      /x\.bin: not a memdir word-vector file/,
    );
    assert.throws(() => decodeWordVectors(good.subarray(0, good.length - 1), "x.bin"), /truncated/);
    const future = Buffer.from(good);
    future.writeUInt8(9, 4);
    assert.throws(() => decodeWordVectors(future, "x.bin"), /unsupported version 9/);
    const badCount = Buffer.from(good);
    badCount.writeUInt32LE(3, 7); // 3 rows announced, 2 words and 2 rows' bytes present
    assert.throws(() => decodeWordVectors(badCount, "x.bin"), /sizes in the header do not add up/);
    assert.throws(() => readWordVectors(path.join(makeTempDir(), "missing.bin")), /ENOENT/);
  });

  it("fall back to words alone, with one warning, when the file is damaged", () => {
    const file = path.join(makeTempDir(), "vectors.bin");
    fs.writeFileSync(
      file,
      encodeWordVectors(
        ["cats", "dogs"],
        [
          [1, 0],
          [0, 1],
        ],
        2,
      ).subarray(0, 20),
    );
    const warnings: string[] = [];
    assert.equal(
      readWordVectorsOrNull(file, (message) => warnings.push(message)),
      null,
    );
    assert.equal(warnings.length, 1);
    assert.match(warnings[0], /word vectors unusable, recall ranks by shared words only: .*vectors\.bin: /);
  });
});
