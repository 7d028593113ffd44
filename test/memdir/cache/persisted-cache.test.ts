import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import {
  BINARY_CACHE_FORMAT,
  decodeBinaryCache,
  encodeBinaryCache,
} from "../../../src/memdir/cache/binary-cache.ts";
import {
  CACHE_DIRECTORY_NAME,
  loadPersistedBinary,
  loadPersistedCache,
  PERSIST_MIN_MEMORIES,
  persistedCachePath,
  savePersistedBinary,
  savePersistedCache,
} from "../../../src/memdir/cache/persisted-cache.ts";
import { runCli } from "../../helpers/cli.ts";
import { memory, writeMemory } from "../../helpers/memory.ts";
import { makeTempDir } from "../../helpers/temp.ts";

// Enough memories for a cache file to be written at all (small dirs get none).
const MEMORY_COUNT = PERSIST_MIN_MEMORIES + 20;

/** A memory dir of MEMORY_COUNT notes on dull topics, plus one about database migrations. */
function bigMemoryDir(): { home: string; memoryDir: string } {
  const home = makeTempDir();
  const memoryDir = path.join(home, "memory");
  fs.mkdirSync(memoryDir);
  const topics = ["lunch menu", "office plants", "parking rules", "coffee machine", "holiday calendar"];
  for (let i = 0; i < MEMORY_COUNT - 1; i++) {
    const topic = topics[i % topics.length];
    writeMemory(
      memoryDir,
      `note-${String(i).padStart(4, "0")}.md`,
      memory(`about the ${topic}`, `The ${topic} note number ${i}.`, "project", `note ${i}`),
    );
  }
  writeFeedback(
    memoryDir,
    "feedback-migrations.md",
    "migrations are rehearsed on a staging copy before deploy",
  );
  return { home, memoryDir };
}

/** A feedback memory named after its file, whose description and body are `text`. */
function writeFeedback(memoryDir: string, file: string, text: string): void {
  writeMemory(memoryDir, file, memory(text, text, "feedback", file));
}

interface ExplainJson {
  selected: { file: string }[];
  cache: { headers: { hits: number; misses: number }; index: { hits: number; misses: number } };
}

async function recallExplained(
  home: string,
  memoryDir: string,
  query: string,
  env: Record<string, string> = {},
): Promise<ExplainJson> {
  const result = await runCli(["recall", query, "--dir", memoryDir, "--explain", "--json"], {
    home,
    env,
    timeoutMs: 120_000,
  });
  assert.equal(result.code, 0, result.stderr);
  return JSON.parse(result.stdout) as ExplainJson;
}

describe("persisted cache (a second process reuses the first one's work)", () => {
  it("reuses headers and the lexical index, and sees files changed, removed and added behind its back", async () => {
    const { home, memoryDir } = bigMemoryDir();
    const query = "how are database migrations tested before deploy";

    const first = await recallExplained(home, memoryDir, query);
    assert.equal(first.selected[0]?.file, "feedback-migrations.md");
    assert.deepEqual(first.cache.index, { hits: 0, misses: MEMORY_COUNT }, "a cold process reads every file");
    assert.ok(
      fs.existsSync(persistedCachePath(memoryDir, "lexical", "binary")),
      "the first process saved the index",
    );
    assert.ok(fs.existsSync(persistedCachePath(memoryDir, "headers")), "and the headers");

    const second = await recallExplained(home, memoryDir, query);
    assert.deepEqual(second.selected, first.selected, "same answer from the cache");
    assert.deepEqual(second.cache.index, { hits: MEMORY_COUNT, misses: 0 }, "no memory file re-read");
    assert.deepEqual(second.cache.headers, { hits: MEMORY_COUNT, misses: 0 }, "no header re-parsed");

    // Behind the cache's back: one note edited, the migrations memory removed, a new one added.
    const edited = path.join(memoryDir, "note-0007.md");
    fs.writeFileSync(
      edited,
      "---\nname: note 7\ndescription: the zeppelin hangar key\ntype: project\n---\nAsk Ana for the zeppelin hangar key.\n",
    );
    fs.utimesSync(edited, new Date(), new Date(Date.now() + 5_000));
    fs.rmSync(path.join(memoryDir, "feedback-migrations.md"));
    writeFeedback(memoryDir, "feedback-rollbacks.md", "every migration ships with a tested rollback script");

    const editedRecall = await recallExplained(home, memoryDir, "where is the zeppelin hangar key");
    assert.equal(
      editedRecall.selected[0]?.file,
      "note-0007.md",
      "the edited text is searched, not the cached one",
    );
    assert.deepEqual(
      editedRecall.cache.index,
      { hits: MEMORY_COUNT - 2, misses: 2 },
      "only the edited and the added file are read",
    );
    const third = await recallExplained(home, memoryDir, query);
    const picked = third.selected.map((pick) => pick.file);
    assert.ok(!picked.includes("feedback-migrations.md"), "a removed memory is never recalled");
    assert.equal(picked[0], "feedback-rollbacks.md", "an added memory is found");
    assert.deepEqual(third.cache.index, { hits: MEMORY_COUNT, misses: 0 }, "the changes were saved too");
  });

  it("ignores a corrupt cache file and rebuilds it", async () => {
    const { home, memoryDir } = bigMemoryDir();
    const query = "how are database migrations tested before deploy";
    fs.mkdirSync(path.join(memoryDir, CACHE_DIRECTORY_NAME));
    fs.writeFileSync(persistedCachePath(memoryDir, "lexical", "binary"), "not a cache at all");
    fs.writeFileSync(persistedCachePath(memoryDir, "headers"), Buffer.from([0xff, 0x0f, 0x00, 0x13, 0x37]));

    const first = await recallExplained(home, memoryDir, query);
    assert.equal(first.selected[0]?.file, "feedback-migrations.md");
    assert.deepEqual(first.cache.index, { hits: 0, misses: MEMORY_COUNT });
    const second = await recallExplained(home, memoryDir, query);
    assert.deepEqual(second.selected, first.selected);
    assert.deepEqual(second.cache.index, { hits: MEMORY_COUNT, misses: 0 }, "rebuilt and reused");
  });

  it("still recalls when the memory dir cannot be written", async () => {
    const { home, memoryDir } = bigMemoryDir();
    const query = "how are database migrations tested before deploy";
    // A file where the cache folder would go blocks writing even for root; for other users the
    // folder is also made read-only.
    fs.writeFileSync(path.join(memoryDir, CACHE_DIRECTORY_NAME), "in the way");
    fs.chmodSync(memoryDir, 0o555);
    try {
      const result = await runCli(["recall", query, "--dir", memoryDir, "--explain", "--json"], {
        home,
        timeoutMs: 120_000,
      });
      assert.equal(result.code, 0, result.stderr);
      assert.equal((JSON.parse(result.stdout) as ExplainJson).selected[0]?.file, "feedback-migrations.md");
      assert.equal(result.stderr, "", "no complaint about the cache");
    } finally {
      fs.chmodSync(memoryDir, 0o755);
    }
  });

  it("writes nothing with MEMDIR_NO_CACHE=1, and nothing for a small memory dir", async () => {
    const { home, memoryDir } = bigMemoryDir();
    const query = "how are database migrations tested before deploy";
    const result = await recallExplained(home, memoryDir, query, { MEMDIR_NO_CACHE: "1" });
    assert.equal(result.selected[0]?.file, "feedback-migrations.md");
    assert.ok(!fs.existsSync(path.join(memoryDir, CACHE_DIRECTORY_NAME)));

    // One memory short of the line: a handful of notes get no cache folder.
    const small = path.join(home, "small");
    fs.mkdirSync(small);
    writeFeedback(
      small,
      "feedback-migrations.md",
      "migrations are rehearsed on a staging copy before deploy",
    );
    for (let i = 0; i < PERSIST_MIN_MEMORIES - 2; i++)
      writeMemory(
        small,
        `note-${i}.md`,
        memory(`lunch note ${i}`, `The lunch menu ${i}.`, "project", `n${i}`),
      );
    const smallResult = await recallExplained(home, small, query);
    assert.equal(smallResult.selected[0]?.file, "feedback-migrations.md");
    assert.ok(!fs.existsSync(path.join(small, CACHE_DIRECTORY_NAME)), "a few notes get no cache folder");

    // At the line (tens of memories, not hundreds), the next process finds the caches.
    writeMemory(small, "note-last.md", memory("lunch note last", "The lunch menu.", "project", "last"));
    await recallExplained(home, small, query);
    const second = await recallExplained(home, small, query);
    assert.equal(second.selected[0]?.file, "feedback-migrations.md");
    assert.equal(second.cache.index.hits, PERSIST_MIN_MEMORIES, "every memory's statistics from the cache");
    assert.equal(second.cache.index.misses, 0);
  });
});

describe("binary cache files (loadPersistedBinary / savePersistedBinary)", () => {
  it("round-trip arrays as views into one buffer, and refuse a torn, padded, foreign or other-code file", async () => {
    const memoryDir = makeTempDir();
    const content = {
      meta: { terms: ["a", "ü"], total: 3 },
      arrays: [
        new Uint16Array([1, 2, 3]),
        new Float64Array([0.5]),
        new Uint8Array([7]),
        new Int32Array([-1, 4]),
      ],
    };
    assert.equal(await savePersistedBinary(memoryDir, "demo", "fp-1", content), "saved");
    const file = persistedCachePath(memoryDir, "demo", "binary");
    assert.ok(file.endsWith("demo.bin"));
    const loaded = await loadPersistedBinary(memoryDir, "demo", "fp-1");
    assert.deepEqual(loaded, content);
    assert.ok(
      loaded?.arrays.every((array) => array.buffer === loaded.arrays[0].buffer),
      "one buffer",
    );
    assert.equal(await loadPersistedBinary(memoryDir, "demo", "fp-2"), null, "other code wrote it");
    fs.copyFileSync(file, persistedCachePath(memoryDir, "other", "binary"));
    assert.equal(await loadPersistedBinary(memoryDir, "other", "fp-1"), null, "a file under the wrong name");
    const whole = fs.readFileSync(file);
    assert.equal(decodeBinaryCache(whole.subarray(0, whole.length - 8), "demo", "fp-1"), null, "torn");
    assert.equal(decodeBinaryCache(Buffer.concat([whole, Buffer.alloc(8)]), "demo", "fp-1"), null, "padded");
    assert.equal(decodeBinaryCache(Buffer.from("MDCB nonsense"), "demo", "fp-1"), null, "foreign");
    const future = Buffer.from(whole);
    future.writeUInt32LE(BINARY_CACHE_FORMAT + 1, 4);
    assert.equal(decodeBinaryCache(future, "demo", "fp-1"), null, "another layout");
    const shifted = Buffer.alloc(whole.length + 1);
    whole.copy(shifted, 1);
    assert.deepEqual(decodeBinaryCache(shifted.subarray(1), "demo", "fp-1"), content, "an unaligned buffer");
    // A v8 file of the same name (what earlier versions wrote) is removed by the binary save.
    assert.equal(await savePersistedCache(memoryDir, "demo", "fp-1", { old: true }), "saved");
    assert.equal(await savePersistedBinary(memoryDir, "demo", "fp-1", content), "saved");
    assert.equal(fs.existsSync(persistedCachePath(memoryDir, "demo")), false);
  });
  it("read a file of tens of MB (an index of ~20,000 memories) off the event loop, whole, and refuse it torn", async () => {
    const memoryDir = makeTempDir();
    const big = new Float64Array(2_000_000).map((_, i) => i * 0.5); // 16 MB
    const content = { meta: { total: big.length }, arrays: [big, new Uint8Array([1, 2, 3])] };
    assert.equal(await savePersistedBinary(memoryDir, "big", "fp", content), "saved");
    let turns = 0;
    let counting = true;
    const count = () => {
      turns++;
      if (counting) setImmediate(count);
    };
    setImmediate(count);
    const loaded = await loadPersistedBinary(memoryDir, "big", "fp");
    counting = false;
    assert.ok(turns > 0, "other work ran while the file was read");
    assert.deepEqual(loaded, content);
    const file = persistedCachePath(memoryDir, "big", "binary");
    fs.truncateSync(file, fs.statSync(file).size - 8);
    assert.equal(await loadPersistedBinary(memoryDir, "big", "fp"), null, "torn");
  });
});

describe("loadPersistedCache / savePersistedCache", () => {
  it("round-trips typed arrays and refuses a file of another name, fingerprint or format", async () => {
    const memoryDir = makeTempDir();
    const data = { files: ["a.md"], sizes: new Float64Array([12]), ids: new Uint32Array([1, 2, 3]) };
    assert.equal(await savePersistedCache(memoryDir, "demo", "fp-1", data), "saved");
    assert.deepEqual(await loadPersistedCache(memoryDir, "demo", "fp-1"), data);
    assert.equal(await loadPersistedCache(memoryDir, "demo", "fp-2"), null, "other code wrote it");
    fs.copyFileSync(persistedCachePath(memoryDir, "demo"), persistedCachePath(memoryDir, "other"));
    assert.equal(await loadPersistedCache(memoryDir, "other", "fp-1"), null, "a file under the wrong name");
    fs.writeFileSync(persistedCachePath(memoryDir, "demo"), "{}");
    assert.equal(await loadPersistedCache(memoryDir, "demo", "fp-1"), null, "corrupt");
    assert.equal(await loadPersistedCache(memoryDir, "missing", "fp-1"), null, "absent");
  });

  it("removes the half-written temp file of a writer that died mid-save", async () => {
    const memoryDir = makeTempDir();
    const deadPid = spawnSync(process.execPath, ["-e", ""]).pid;
    fs.mkdirSync(path.join(memoryDir, CACHE_DIRECTORY_NAME));
    const leftover = path.join(memoryDir, CACHE_DIRECTORY_NAME, `.lexical.v8.${deadPid}.0a1b2c.memdir-tmp`);
    fs.writeFileSync(leftover, "half a cache");
    assert.equal(await savePersistedCache(memoryDir, "demo", "fp", { a: 1 }), "saved");
    assert.ok(!fs.existsSync(leftover));
  });

  it("never creates a missing memory dir", async () => {
    const home = makeTempDir();
    const memoryDir = path.join(home, "not-yet");
    assert.equal(await savePersistedCache(memoryDir, "demo", "fp", { a: 1 }), "skipped");
    assert.ok(!fs.existsSync(memoryDir));
  });
});

describe("encodeBinaryCache", () => {
  it("writes an array given as chunks exactly as the same array given whole", () => {
    const whole = Uint16Array.from({ length: 11 }, (_, i) => i * 7);
    const chunks = [whole.slice(0, 3), whole.slice(3, 4), whole.slice(4)];
    const other = Float64Array.from([1.5, 2.5]);
    const joined = (parts: Uint8Array[]) => Buffer.concat(parts);
    const fromChunks = joined(encodeBinaryCache("x", "f", { meta: { n: 1 }, arrays: [chunks, other] }));
    const fromWhole = joined(encodeBinaryCache("x", "f", { meta: { n: 1 }, arrays: [whole, other] }));
    assert.deepEqual(fromChunks, fromWhole);
    const decoded = decodeBinaryCache(fromChunks, "x", "f");
    assert.deepEqual([...(decoded?.arrays[0] ?? [])], [...whole]);
    assert.deepEqual([...(decoded?.arrays[1] ?? [])], [1.5, 2.5]);
  });
});
