import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { parseFrontmatter } from "../../../../src/memdir/format/frontmatter.ts";
import { scanHeaders } from "../../../../src/memdir/scan/scan.ts";
import { nameWithoutType } from "../../../../src/recall/lexical/index/corpus.ts";
import { TermDictionary } from "../../../../src/recall/lexical/index/dictionary.ts";
import { LexicalIndexCache } from "../../../../src/recall/lexical/index/lexical-index.ts";
import {
  bodyTokens,
  type IndexedMemory,
  LOCAL_TOKEN_TERMS,
  TokenBuffer,
} from "../../../../src/recall/lexical/index/memory-record.ts";
import { TermScanner } from "../../../../src/recall/lexical/index/term-scanner.ts";
import { CUT_AFTER, cutsAfter, SEGMENT_PIECE_CHARS } from "../../../../src/recall/lexical/text/segment.ts";
import { forEachTerm, tokenize } from "../../../../src/recall/lexical/text/tokenize.ts";
import { seededRandom, testSeed } from "../../../helpers/random.ts";
import { makeTempDir } from "../../../helpers/temp.ts";

// The index build's body tokenizer (term-scanner.ts) against the path it replaced: forEachTerm line
// by line, each term interned in order. Same terms, same ids in the same order, same line starts.

const PIECES = [
  "Integration tests must hit a real database, never a mock.",
  "We WENT to the Paintings exhibition; the children bought tickets",
  "src/auth/login.integration.test.ts line 42: expect(x).toBe(3.14)",
  "const user_id = await db.query(`SELECT * FROM t WHERE a<>b`);",
  "登录模块的集成测试不得 mock 数据库。",
  "部署流水线上线前要经过安全评审：第3项",
  "認証のリファクタリングはコンプライアンス要件による",
  "ｆｕｌｌ－ｗｉｄｔｈ ＡＰＩ Ｔｏｋｅｎ　全角スペース",
  "한국어 문장도 있습니다 테스트",
  "ภาษาไทยไม่มีช่องว่างระหว่างคำ",
  "emoji 🐛 fix 👩‍💻 dev 🇺🇸 flag ✨",
  "combining e\u0301 cafe\u0301 x\u0353 \u0301lonely mark",
  "a <\u0338 b =\u0338 c",
  "ligatures ﬁle ﬂow, Turkish İstanbul, German Straße, Greek ΟΔΟΣ",
  "zero\u200bwidth\ufeffbom and nbsp\u00a0here\u3000ideographic、comma。stop",
  "tab\tseparated\vvertical\fform\r",
  "a".repeat(70),
  "Long_Identifier_With_Many_Parts_And_Numbers_1234567890_abcdefghijklmnopqrstuvwxyz_end",
  "mixed日本語text and ASCII中文words",
  "\u0000\u0001 control chars \u007f",
  "the a an of to and is stop words only",
  "\ud800 lone surrogate \udc00 here",
  // ASCII words the segmenter joins with the Katakana after them: nothing may be interned first.
  "see foo_カナ then foo bar",
  "abc123_テスト x_y_ア half-width ｶﾀ",
  // Phrasal verbs joined (phrasal-verbs.ts): forms, hyphens, underscores, punctuation between, a
  // noun marker before "in", a particle that is a verb too, and one in a line the segmenter takes.
  "We set up CI; setting-up the DB, then Set_Up again. The request timed out twice",
  "roll back up, log in, the log in Grafana, users LOG IN via SSO; set. up; set  up",
  "sign in 登录 then set up テスト and call back",
  "Caf\u00e9 staff set up the cutover; they fail over",
];

function randomBody(random: () => number): string {
  const lines: string[] = [];
  const count = 1 + Math.floor(random() * 12);
  for (let l = 0; l < count; l++) {
    const parts: string[] = [];
    const words = Math.floor(random() * 6);
    for (let w = 0; w < words; w++) {
      const piece = PIECES[Math.floor(random() * PIECES.length)];
      // Sometimes a fragment, so chunks and words are cut at every kind of place.
      const from = random() < 0.3 ? Math.floor(random() * piece.length) : 0;
      parts.push(piece.slice(from));
    }
    let line = parts.join(random() < 0.8 ? " " : "");
    // Now and then a very long line (past one segmenter piece).
    if (random() < 0.05)
      line = line.repeat(Math.ceil((SEGMENT_PIECE_CHARS * 1.5) / Math.max(1, line.length)));
    lines.push(line);
  }
  return lines.join(random() < 0.9 ? "\n" : "\r\n");
}

/** The replaced path: every line through forEachTerm, each term interned as it comes. */
function referenceScan(dictionary: TermDictionary, body: string) {
  const tokens: number[] = [];
  const lineStarts: number[] = [];
  for (const line of body.split("\n")) {
    const start = tokens.length;
    forEachTerm(line, (term) => tokens.push(dictionary.intern(term)));
    if (tokens.length > start) lineStarts.push(start);
  }
  return { tokens, lineStarts };
}

describe("the index build's body tokenizer", () => {
  it("makes exactly the terms, ids and line starts of forEachTerm line by line, on hostile text", (t) => {
    const seed = testSeed();
    t.diagnostic(`seed ${seed}`);
    const random = seededRandom(seed);
    const expected = new TermDictionary();
    const actual = new TermDictionary();
    const scanner = new TermScanner(actual);
    // Past one segmenter piece with no place to cut: the segmenter gets it in hard-cut pieces.
    const unbroken = "登录模块的集成测试部署流水线上线前要经过安全评审".repeat(60);
    const bodies = [...PIECES, PIECES.join("\n"), PIECES.join(" "), "", unbroken, `see ${unbroken} ok`];
    for (let i = 0; i < 400; i++) bodies.push(randomBody(random));
    // Each body twice: the second time every word and chunk comes from the scanner's memo.
    for (const body of [...bodies, ...bodies]) {
      const want = referenceScan(expected, body);
      const got = scanner.scan(body);
      const context = `seed ${seed}, body ${JSON.stringify(body.slice(0, 200))}`;
      assert.deepEqual([...got.tokens.subarray(0, got.tokenCount)], want.tokens, context);
      assert.deepEqual([...got.lineStarts.subarray(0, got.lineCount)], want.lineStarts, context);
      assert.equal(actual.size, expected.size, context);
    }
    assert.deepEqual(actual.terms(), expected.terms());
    assert.ok(expected.size > 200, `hostile text gave only ${expected.size} terms`);
  });

  it("cuts where the segmenter's pieces may be cut: its whitespace test agrees with the regex", () => {
    for (let code = 0; code <= 0xffff; code++)
      assert.equal(cutsAfter(code), CUT_AFTER.test(String.fromCharCode(code)), `U+${code.toString(16)}`);
  });

  it("builds the same records as the per-line path over a generated directory", async (t) => {
    const seed = testSeed();
    t.diagnostic(`seed ${seed}`);
    const random = seededRandom(seed);
    const memoryDir = makeTempDir();
    for (let i = 0; i < 60; i++) {
      const description = PIECES[i % PIECES.length].slice(0, 80).replace(/[\n\r]/g, " ");
      const text = `---\ndescription: ${JSON.stringify(description)}\ntype: project\n---\n${randomBody(random)}\n`;
      fs.writeFileSync(path.join(memoryDir, `note-${i}.md`), text);
    }
    // A BOM before the frontmatter, CRLF lines, a file with no frontmatter, one never closed.
    fs.writeFileSync(
      path.join(memoryDir, "bom.md"),
      "\uFEFF---\r\ntype: user\r\n---\r\n\r\nBOM body 登录\r\n",
    );
    fs.writeFileSync(path.join(memoryDir, "plain.md"), "\uFEFFno frontmatter at all, ASCII and 中文\n");
    fs.writeFileSync(path.join(memoryDir, "unclosed.md"), "---\ntype: user\nnever closed 测试\n");
    // More distinct body words than a record stores one byte each (memory-record.ts).
    const letter = (n: number) => String.fromCharCode(97 + (n % 26));
    const manyWords = Array.from({ length: 400 }, (_, i) => `zq${letter(i)}${letter(Math.floor(i / 26))}`);
    fs.writeFileSync(
      path.join(memoryDir, "wide.md"),
      `---\ntype: user\n---\n${manyWords.join(" ")}\n${randomBody(random)}\n`,
    );
    const headers = await scanHeaders(memoryDir, { limit: Number.POSITIVE_INFINITY });
    const index = new LexicalIndexCache().forDirectory(memoryDir);
    await index.sync(headers);
    // The reference: the build as it was, term by term into a dictionary of its own, in the same order.
    const dictionary = new TermDictionary();
    assert.ok(headers.some((header) => header.file === "plain.md"));
    const packed = new Set<boolean>();
    for (const header of headers) {
      const memory = index.corpus.get(header.file) as IndexedMemory;
      const parsed = parseFrontmatter(fs.readFileSync(header.path, "utf8"));
      // No type terms, and the name without its type prefix (docs/design.md#memory-types-are-no-evidence).
      const fields = [nameWithoutType(header.file), parsed.description ?? "", ""];
      const pairs = fields.map((field) => countPairs(dictionary, tokenize(field)));
      const body = referenceScan(dictionary, parsed.body);
      const bodyTerms = [...new Set(body.tokens)].sort((a, b) => a - b);
      const frequencies = bodyTerms.map((id) => body.tokens.filter((token) => token === id).length);
      const expected = [
        ...pairs.map((p) => p.length / 2),
        bodyTerms.length,
        body.lineStarts.length,
        body.tokens.length,
        ...pairs.flat(),
        ...bodyTerms,
        ...frequencies,
        ...body.lineStarts,
      ];
      assert.deepEqual(
        [...memory.record.subarray(0, memory.tokensAt)],
        expected,
        `seed ${seed}, ${header.file}`,
      );
      // The tokens, whichever way the record stores them (memory-record.ts), read back as term ids.
      const tokens = [...bodyTokens(memory, new TokenBuffer())];
      assert.deepEqual(tokens, body.tokens, `seed ${seed}, ${header.file}`);
      assert.deepEqual(
        tokens.map((_, i) => memory.token(i)),
        body.tokens,
      );
      assert.equal(memory.record instanceof Uint16Array, Math.max(...expected, ...body.tokens) <= 0xffff);
      assert.equal(memory.packedTokens, bodyTerms.length <= LOCAL_TOKEN_TERMS);
      packed.add(memory.packedTokens);
      const tokenEntries = memory.packedTokens
        ? Math.ceil(body.tokens.length / memory.record.BYTES_PER_ELEMENT)
        : body.tokens.length;
      assert.equal(memory.record.length, expected.length + tokenEntries);
    }
    assert.deepEqual(index.corpus.dictionary.terms(), dictionary.terms());
    assert.deepEqual([...packed].sort(), [false, true], "both ways of storing tokens were built");
  });
});

/** (term id, frequency) pairs in first-occurrence order, as a record's short fields hold them. */
function countPairs(dictionary: TermDictionary, terms: string[]): number[] {
  const pairs: number[] = [];
  for (const term of terms) {
    const id = dictionary.intern(term);
    const at = pairs.findIndex((value, i) => i % 2 === 0 && value === id);
    if (at >= 0) pairs[at + 1]++;
    else pairs.push(id, 1);
  }
  return pairs;
}
