import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  bodyTokens,
  IndexedMemory,
  LOCAL_TOKEN_TERMS,
  packRecord,
  recordLength,
  TokenBuffer,
} from "../../../../src/recall/lexical/index/memory-record.ts";
import { seededRandom, testSeed } from "../../../helpers/random.ts";

// A record stores the body tokens of a small body one byte each and of a large one as term ids
// (memory-record.ts). Whatever the form and the element width, the tokens must read back as the
// ids that went in, and the record's length must be what the cache file's reader computes.

function pack(tokens: number[], lineStarts: number[], shortIds: number[]) {
  const largest = Math.max(0, ...tokens, ...shortIds);
  return packRecord({
    shortFields: [shortIds.flatMap((id) => [id, 1]), [], []],
    tokens: Uint32Array.from(tokens),
    tokenCount: tokens.length,
    lineStarts: Uint32Array.from(lineStarts),
    lineCount: lineStarts.length,
    counts: new Uint32Array(largest + 1),
    distinct: new Uint32Array(Math.max(1, tokens.length)),
  });
}

describe("a memory record's body tokens", () => {
  it("read back as the ids that went in, packed or not, 16- or 32-bit, odd or even counts", (t) => {
    const seed = testSeed();
    t.diagnostic(`seed ${seed}`);
    const random = seededRandom(seed);
    const seen = new Set<string>();
    const buffer = new TokenBuffer();
    for (let round = 0; round < 200; round++) {
      const distinct = [1, 2, 7, LOCAL_TOKEN_TERMS - 1, LOCAL_TOKEN_TERMS, LOCAL_TOKEN_TERMS + 1, 900][
        round % 7
      ];
      // Ids above 65,535 make the record 32-bit (a corpus of more terms than that).
      const wide = round % 2 === 1;
      const idBase = wide ? 70_000 : 0;
      const vocabulary = Array.from(
        { length: distinct },
        (_, i) => idBase + i * 3 + Math.floor(random() * 3),
      );
      const tokenCount = distinct + Math.floor(random() * 600) + (round % 4);
      // Every word of the vocabulary at least once, then random ones, shuffled.
      const tokens = [...vocabulary];
      while (tokens.length < tokenCount) tokens.push(vocabulary[Math.floor(random() * distinct)]);
      for (let i = tokens.length - 1; i > 0; i--) {
        const j = Math.floor(random() * (i + 1));
        [tokens[i], tokens[j]] = [tokens[j], tokens[i]];
      }
      const lineStarts = [0, Math.floor(tokens.length / 3), Math.floor((2 * tokens.length) / 3)];
      const record = pack(tokens, lineStarts, [idBase + 5, idBase + 1]);
      const memory = new IndexedMemory("m.md", "/m.md", 0, 0, record);
      const context = `seed ${seed}, round ${round}`;
      assert.equal(memory.packedTokens, distinct <= LOCAL_TOKEN_TERMS, context);
      assert.equal(record instanceof Uint32Array, wide, context);
      assert.deepEqual([...bodyTokens(memory, buffer)], tokens, context);
      assert.equal(memory.token(tokens.length - 1), tokens.at(-1), context);
      assert.equal(recordLength(record), record.length, context);
      // Inside a longer column, as the cache file holds records back to back.
      const column = new (record.constructor as Uint16ArrayConstructor)(record.length + 9);
      column.set(record, 4);
      assert.equal(recordLength(column, 4), record.length, context);
      const expectedEntries = memory.packedTokens
        ? Math.ceil(tokens.length / record.BYTES_PER_ELEMENT)
        : tokens.length;
      assert.equal(record.length - memory.tokensAt, expectedEntries, context);
      seen.add(`${memory.packedTokens}/${record.BYTES_PER_ELEMENT}`);
    }
    assert.deepEqual([...seen].sort(), ["false/2", "false/4", "true/2", "true/4"]);
  });

  it("leaves the caller's count scratch all zero, so the next record starts clean", () => {
    const counts = new Uint32Array(64);
    for (const tokens of [
      [3, 9, 3, 3, 40],
      [9, 9, 1],
    ]) {
      packRecord({
        shortFields: [[], [], []],
        tokens: Uint32Array.from(tokens),
        tokenCount: tokens.length,
        lineStarts: Uint32Array.of(0),
        lineCount: 1,
        counts,
        distinct: new Uint32Array(8),
      });
      assert.ok(counts.every((count) => count === 0));
    }
  });
});
