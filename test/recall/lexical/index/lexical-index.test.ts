import assert from "node:assert/strict";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { describe, it } from "node:test";
import { PERSIST_MIN_MEMORIES } from "../../../../src/memdir/cache/persisted-cache.ts";
import { scanHeaders } from "../../../../src/memdir/scan/scan.ts";
import { LexicalIndexCache } from "../../../../src/recall/lexical/index/lexical-index.ts";
import { createLexicalSelector } from "../../../../src/recall/select-lexical.ts";
import { makeTempDir } from "../../../helpers/temp.ts";

const TOPICS = [
  "database migrations",
  "login tests",
  "deploy checklist",
  "coffee machine",
  "holiday calendar",
];

/** A note on `topic`; `filler` extra words make every note's length (and so its score) distinct. */
function writeNote(memoryDir: string, file: string, topic: string, filler: number, when: number): void {
  const body = `${topic} notes.\n${"detail ".repeat(filler)}\nmore about ${topic} here.\n`;
  const target = path.join(memoryDir, file);
  fs.writeFileSync(target, `---\nname: ${file}\ndescription: about ${topic}\ntype: project\n---\n${body}`);
  fs.utimesSync(target, new Date(when), new Date(when));
}

async function picksOf(memoryDir: string, cache: LexicalIndexCache, query: string) {
  const select = createLexicalSelector({ cache });
  const headers = await scanHeaders(memoryDir, { limit: Number.POSITIVE_INFINITY });
  const { picks } = await select.select({ query, headers, k: 5, memoryDir, recentTools: [] });
  // The cache file is saved in the background; waiting for it lets the temp dir go without a race.
  await cache.flush();
  return picks.map((pick) => ({ file: pick.file, score: pick.score }));
}

/** Words no stemmer shortens (consonants only) and no other memory shares. */
function syntheticWord(memory: number, position: number): string {
  const letters = "bcdfghjkmnpqrtvwxz";
  let value = memory * 100_000 + position;
  let word = "zq";
  for (let i = 0; i < 5; i++) {
    word += letters[value % letters.length];
    value = Math.floor(value / letters.length);
  }
  return word;
}

describe("lexical index", () => {
  it("ranks exactly as a freshly built index after rounds of edits, deletions and additions", async () => {
    const memoryDir = makeTempDir();
    const start = Date.parse("2026-01-01T00:00:00Z");
    let next = 0;
    const live: string[] = [];
    const add = () => {
      const file = `note-${String(next).padStart(3, "0")}.md`;
      writeNote(memoryDir, file, TOPICS[next % TOPICS.length], next, start + next * 3_600_000);
      live.push(file);
      next++;
    };
    for (let i = 0; i < 60; i++) add();
    const kept = new LexicalIndexCache();
    const queries = ["how are database migrations tested", "login tests flaky", "deploy checklist detail"];
    for (const query of queries) await picksOf(memoryDir, kept, query);
    for (let round = 0; round < 5; round++) {
      // Freed posting slots are reused and stale posting entries pile up along the way.
      for (const file of live.splice(0, 20)) fs.rmSync(path.join(memoryDir, file));
      for (const file of live.slice(0, 10)) {
        const filler = 200 + next++;
        writeNote(
          memoryDir,
          file,
          TOPICS[(round + filler) % TOPICS.length],
          filler,
          start + filler * 3_600_000,
        );
      }
      for (let i = 0; i < 20; i++) add();
      for (const query of queries) {
        const fresh = await picksOf(memoryDir, new LexicalIndexCache(), query);
        assert.ok(fresh.length > 0, `round ${round}: "${query}" finds something`);
        assert.deepEqual(await picksOf(memoryDir, kept, query), fresh, `round ${round}: "${query}"`);
      }
    }
  });

  it("finds words of memories indexed after the dictionary passed 65,536 terms, also from the cache file", async () => {
    const memoryDir = makeTempDir();
    // Ten memories of 7,000 words no other memory has (70,000 terms in all; ~56 KB each, under
    // the indexing cap), so some term ids need more than 16 bits; plus enough notes for a cache file.
    const bigCount = 10;
    const wordsPerMemory = 7_000;
    for (let memory = 0; memory < bigCount; memory++) {
      const words = Array.from({ length: wordsPerMemory }, (_, position) => syntheticWord(memory, position));
      const lines: string[] = [];
      for (let i = 0; i < words.length; i += 12) lines.push(words.slice(i, i + 12).join(" "));
      fs.writeFileSync(
        path.join(memoryDir, `vocabulary-${memory}.md`),
        `---\nname: vocabulary ${memory}\ndescription: word list ${memory}\ntype: reference\n---\n${lines.join("\n")}\n`,
      );
    }
    for (let i = 0; i < PERSIST_MIN_MEMORIES; i++)
      writeNote(memoryDir, `note-${i}.md`, TOPICS[i % TOPICS.length], i % 7, Date.now() - i * 1000);

    const queries = Array.from({ length: bigCount }, (_, memory) => ({
      query: `which list has ${syntheticWord(memory, wordsPerMemory - 1)}`,
      expected: `vocabulary-${memory}.md`,
    }));
    const built = new LexicalIndexCache({ persist: true });
    const firstPicks = [];
    for (const { query, expected } of queries) {
      const picks = await picksOf(memoryDir, built, query);
      assert.equal(picks[0]?.file, expected, query);
      firstPicks.push(picks);
    }
    await built.flush();
    assert.ok(fs.existsSync(path.join(memoryDir, ".memdir-cache", "lexical.bin")), "the index was saved");

    const loaded = new LexicalIndexCache({ persist: true });
    for (const [i, { query }] of queries.entries()) {
      assert.deepEqual(
        await picksOf(memoryDir, loaded, query),
        firstPicks[i],
        `${query} (from the cache file)`,
      );
    }
  });
  it("lets its process answer a socket while it loads its cache file (the memory helper acknowledges prompts meanwhile)", async () => {
    const memoryDir = makeTempDir();
    for (let i = 0; i < PERSIST_MIN_MEMORIES + 10; i++)
      writeNote(memoryDir, `note-${i}.md`, TOPICS[i % TOPICS.length], i % 9, Date.now() - i * 1000);
    const built = new LexicalIndexCache({ persist: true });
    const expected = await picksOf(memoryDir, built, "login tests");
    await built.flush();
    const headers = await scanHeaders(memoryDir, { limit: Number.POSITIVE_INFINITY });

    // A server of this process with a client already connected, as the helper has while it loads.
    let loading = false;
    let answeredWhileLoading = false;
    const server = net.createServer((socket) => {
      socket.on("data", () => {
        answeredWhileLoading ||= loading;
        socket.end("ack\n");
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const accepted = new Promise((resolve) => server.once("connection", resolve));
    const client = net.connect((server.address() as net.AddressInfo).port, "127.0.0.1");
    client.on("data", () => client.end());
    await accepted;
    try {
      const loaded = new LexicalIndexCache({ persist: true });
      loading = true;
      const load = loaded.forDirectory(memoryDir).sync(headers);
      client.write("ping\n");
      await load;
      loading = false;
      assert.ok(answeredWhileLoading, "the request was answered before the load ended");
      assert.deepEqual(await picksOf(memoryDir, loaded, "login tests"), expected, "and the load is whole");
    } finally {
      client.destroy();
      server.close();
    }
  });
});
