import { close as closeCallback, open as openCallback, read as readCallback } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { MemdirError } from "../errors.ts";
import { parseFrontmatter } from "../memdir/frontmatter.ts";
import {
  codeFingerprint,
  loadPersistedCache,
  persistedCacheEnabled,
  persistedCacheStats,
  saveInBackground,
  worthPersisting,
} from "../memdir/persisted-cache.ts";
import type { MemoryHeader } from "../types.ts";
import { ENGLISH_STOP_WORDS, stemEnglish, tokenize, tokenizeDetailed } from "./tokenize.ts";

/**
 * An incremental, in-memory index of one memory directory for the lexical selector.
 *
 * Each file is read and tokenized once per `(path, mtimeMs, size)`; a file that changes behind
 * our back gets a new key from the next header scan and is re-read, a file that disappears is
 * dropped. Only token statistics are kept (term ids in typed arrays), never raw text, so 20,000
 * memories cost tens of MB rather than the files' size in UTF-16 strings.
 */

/** Field of a memory that the ranker weighs separately (BM25F). */
export type FieldName = "name" | "description" | "type" | "body";
export const FIELD_NAMES: readonly FieldName[] = ["name", "description", "type", "body"];

/** Token statistics of one memory file. */
export interface IndexedMemory {
  file: string;
  path: string;
  mtimeMs: number;
  size: number;
  /** Term id → frequency for the three short fields. */
  name: Map<number, number>;
  description: Map<number, number>;
  type: Map<number, number>;
  /** Sorted unique body term ids with their frequencies (binary-searched at query time). */
  bodyTerms: Uint32Array;
  bodyFrequencies: Uint32Array;
  lengths: Record<FieldName, number>;
  /**
   * Body term ids in reading order, line after line; `lineStarts[i]` is where line i begins.
   * 16-bit when every id of the memory fits (most of the index's memory at 20,000 files).
   */
  lineTokens: Uint32Array | Uint16Array;
  lineStarts: Uint32Array;
}

/** Body lines per passage (sliding by one line): a question usually lands on one or two turns. */
export const PASSAGE_LINES = 2;

/** A sync that read at least this many files compacts the posting lists afterwards. */
const COMPACT_AFTER_READS = 256;
/** How many files are read at once while (re)indexing. */
const READ_CONCURRENCY = 16;
/**
 * How much of each memory file is read and indexed. Memories are notes (the surfacing caps are
 * 200 lines / 4 KB); a 50 MB file pasted into the directory must cost no more than a normal one
 * (it used to be read and tokenized whole: ~5 s CPU and +300 MB resident).
 */
export const INDEX_MAX_BYTES = 64 * 1024;
const openFile = promisify(openCallback);
const readInto = promisify(readCallback);
const closeFile = promisify(closeCallback);
/** Read buffers of {@link readIndexedPart}, returned after each read (at most one per concurrent read). */
const spareBuffers: Buffer[] = [];

/** Term string ↔ dense integer id, shared by all files of one index. */
class TermDictionary {
  readonly #ids = new Map<string, number>();
  /** Typo look-ups, valid while the dictionary has not grown (ids are never reused). */
  readonly #nearMemo = new Map<string, { size: number; ids: number[] }>();
  intern(term: string): number {
    let id = this.#ids.get(term);
    if (id === undefined) {
      id = this.#ids.size;
      this.#ids.set(term, id);
    }
    return id;
  }
  lookup(term: string): number | undefined {
    return this.#ids.get(term);
  }
  /** Every term, in id order. */
  terms(): string[] {
    return [...this.#ids.keys()];
  }
  get size(): number {
    return this.#ids.size;
  }
  /**
   * Ids of terms at Damerau–Levenshtein distance 1 from `term` (one insertion, deletion,
   * substitution or swap of neighbors). Linear in the dictionary, so callers use it only for
   * query words the index does not know.
   */
  withinOneEdit(term: string): number[] {
    const memo = this.#nearMemo.get(term);
    if (memo && memo.size === this.#ids.size) return memo.ids;
    const found: number[] = [];
    for (const [candidate, id] of this.#ids) {
      if (Math.abs(candidate.length - term.length) <= 1 && isOneEditApart(term, candidate)) found.push(id);
    }
    if (this.#nearMemo.size > 1000) this.#nearMemo.clear();
    this.#nearMemo.set(term, { size: this.#ids.size, ids: found });
    return found;
  }
}

/** True when `a` and `b` differ by exactly one insertion, deletion, substitution or adjacent swap. */
export function isOneEditApart(a: string, b: string): boolean {
  if (a === b) return false;
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const restA = endA - start;
  const restB = endB - start;
  if (restA <= 1 && restB <= 1) return true; // one substitution, insertion or deletion
  // adjacent transposition: "ab" ↔ "ba"
  return restA === 2 && restB === 2 && a[start] === b[start + 1] && a[start + 1] === b[start];
}

/** Counts per term id in a growable typed array. */
class Counter {
  #counts = new Int32Array(1024);
  /** Replaces every count (loading a persisted index). */
  restore(counts: Int32Array): void {
    const copy = new Int32Array(Math.max(1024, counts.length));
    copy.set(counts);
    this.#counts = copy;
  }
  add(id: number, delta: number): void {
    if (id >= this.#counts.length) {
      const grown = new Int32Array(Math.max(id + 1, this.#counts.length * 2));
      grown.set(this.#counts);
      this.#counts = grown;
    }
    this.#counts[id] += delta;
  }
  get(id: number): number {
    return id < this.#counts.length ? this.#counts[id] : 0;
  }
}

/** Index of one memory directory. Obtain it from a {@link LexicalIndexCache}. */
export class LexicalIndex {
  readonly dictionary = new TermDictionary();
  /** Memories containing each term anywhere (document frequency). */
  readonly documentFrequency = new Counter();
  /** Passages containing each term (passage-level document frequency). */
  readonly passageFrequency = new Counter();
  readonly #memories = new Map<string, IndexedMemory>();
  readonly #totalLengths: Record<FieldName, number> = { name: 0, description: 0, type: 0, body: 0 };
  #passageCount = 0;
  #passageLengthTotal = 0;
  // Inverted index: term id → slots of the memories containing it.
  // Lists adopted from a cache file stay typed-array views until a memory is added to them.
  readonly #postings = new Map<number, number[] | Uint32Array>();
  #slots: (IndexedMemory | undefined)[] = [];
  #freeSlots: number[] = [];
  #slotOf = new WeakMap<IndexedMemory, number>();
  #slotStamps = new Uint32Array(1024);
  #passageStamps = new Uint32Array(1024);
  #passageStamp = 0;
  #stamp = 0;
  #livePostings = 0;
  #stalePostings = 0;
  // Persistence (see LexicalIndexCache): the memory dir, and whether the cache file needs saving.
  readonly #root: string | null;
  #persistLoaded = false;
  #persistDirty = false;
  readonly #fromCacheFile = new WeakSet<IndexedMemory>();
  // The last completed sync (see syncedWith): its headers, and the add/remove count then.
  #syncedHeaders: MemoryHeader[] | null = null;
  #syncedVersion = 0;
  #version = 0;
  #headerByFile: Map<string, MemoryHeader> | null = null;

  /** `persistRoot`: the absolute memory directory whose `.memdir-cache/lexical.v8` to load and save. */
  constructor(persistRoot: string | null = null) {
    this.#root = persistRoot;
  }

  get size(): number {
    return this.#memories.size;
  }
  get passageCount(): number {
    return this.#passageCount;
  }
  get averagePassageLength(): number {
    return this.#passageCount > 0 ? this.#passageLengthTotal / this.#passageCount : 1;
  }
  averageLength(field: FieldName): number {
    return this.#memories.size > 0 ? this.#totalLengths[field] / this.#memories.size : 1;
  }
  get(file: string): IndexedMemory | undefined {
    return this.#memories.get(file);
  }

  /**
   * Brings the index in line with `headers` (the files as they are on disk now): reads new or
   * changed files, forgets files that no longer exist. Files indexed earlier but absent from
   * `headers` (e.g. filtered out by the caller) stay as long as they still exist, so filtering
   * does not thrash the cache. Unreadable files are skipped, never fatal.
   */
  async sync(headers: readonly MemoryHeader[], signal?: AbortSignal): Promise<void> {
    if (this.#root !== null && !this.#persistLoaded) await this.#loadPersisted(this.#root);
    // Nothing changed since the last sync: the same header objects (the scan hands back the
    // same object for an unchanged file) and no add/remove since. Comparing 20,000 references
    // costs microseconds; the full check below costs ~15 ms of map look-ups.
    if (this.syncedWith(headers)) return;
    const sizeBefore = this.#memories.size;
    let read = 0;
    try {
      read = await this.#syncFiles(headers, signal);
    } finally {
      // Also after an abort (a hook's time bound): what was indexed so far is kept for next time.
      if (read > 0 || this.#memories.size !== sizeBefore) this.#persistDirty = true;
      if (read >= COMPACT_AFTER_READS) this.#compactPostings();
      this.#savePersisted();
    }
    // Only a complete sync is remembered (an abort or a failed read leaves the next one to redo it).
    this.#syncedHeaders = headers.slice();
    this.#syncedVersion = this.#version;
    this.#headerByFile = null;
  }

  /**
   * True when `headers` are exactly the header objects of the last completed {@link sync}, in
   * order, and no memory was added or removed since: the index is in line with them.
   */
  syncedWith(headers: readonly MemoryHeader[]): boolean {
    const last = this.#syncedHeaders;
    if (last === null || this.#syncedVersion !== this.#version || last.length !== headers.length)
      return false;
    for (let i = 0; i < last.length; i++) if (last[i] !== headers[i]) return false;
    return true;
  }

  /**
   * Header by file name of the last completed {@link sync} (built once, reused by every query
   * until the next sync that changes something). Callers check {@link syncedWith} first.
   */
  syncedHeaderByFile(): ReadonlyMap<string, MemoryHeader> {
    if (this.#headerByFile === null) {
      const byFile = new Map<string, MemoryHeader>();
      for (const header of this.#syncedHeaders ?? []) byFile.set(header.file, header);
      this.#headerByFile = byFile;
    }
    return this.#headerByFile;
  }

  /** The body of {@link sync}; returns how many files were read. */
  async #syncFiles(headers: readonly MemoryHeader[], signal: AbortSignal | undefined): Promise<number> {
    const stale: MemoryHeader[] = [];
    const wanted = new Set<string>();
    let reused = 0;
    for (const header of headers) {
      wanted.add(header.file);
      const known = this.#memories.get(header.file);
      if (
        !known ||
        known.mtimeMs !== header.mtimeMs ||
        known.size !== header.size ||
        known.path !== header.path
      ) {
        stale.push(header);
      } else if (this.#fromCacheFile.delete(known)) {
        reused++;
      }
    }
    if (this.#root !== null) {
      persistedCacheStats.index.hits += reused;
      persistedCacheStats.index.misses += stale.length;
    }
    await forEachBounded(stale, READ_CONCURRENCY, async (header) => {
      throwIfAborted(signal);
      const text = await readIndexedPart(header.path).catch(() => null);
      throwIfAborted(signal);
      this.remove(header.file);
      if (text !== null) this.add(header, text);
    });
    // Common case: the caller passed every indexed file, so nothing can be missing.
    const missing =
      this.#memories.size <= wanted.size && headers.every((h) => this.#memories.has(h.file))
        ? []
        : [...this.#memories.keys()].filter((file) => !wanted.has(file));
    await forEachBounded(missing, READ_CONCURRENCY, async (file) => {
      const memory = this.#memories.get(file);
      if (!memory) return;
      const exists = await fs.stat(memory.path).then(
        (stat) => stat.mtimeMs === memory.mtimeMs && stat.size === memory.size,
        () => false,
      );
      if (!exists) this.remove(file);
    });
    return stale.length;
  }

  /**
   * Adopts the cache file of `root` into this (still empty) index: the dictionary with its ids,
   * every memory's statistics and the collection totals. Nothing is trusted blindly: `sync`
   * compares every adopted memory with the fresh header (re-reading a changed file) and stats
   * the ones the caller did not pass (dropping files changed or deleted behind our back).
   */
  async #loadPersisted(root: string): Promise<void> {
    this.#persistLoaded = true;
    if (!persistedCacheEnabled()) return;
    const data = (await loadPersistedCache(
      root,
      LEXICAL_CACHE_NAME,
      lexicalFingerprint(),
    )) as PersistedIndex | null;
    // Only into an empty index: the file's term ids become this index's ids.
    if (this.#memories.size > 0 || this.dictionary.size > 0) return;
    if (!isPersistedIndex(data)) {
      this.#persistDirty = true;
      return;
    }
    for (const term of data.terms) this.dictionary.intern(term);
    const { offsets } = data;
    // 16-bit token columns stay 16-bit (views into the file's buffer, no copy).
    const allTokens = data.tokens;
    for (let i = 0; i < data.files.length; i++) {
      const file = data.files[i];
      const short = (field: number) => {
        const counts = new Map<number, number>();
        const from = offsets.short[i * 3 + field];
        const to = offsets.short[i * 3 + field + 1];
        for (let j = from; j < to; j += 2) counts.set(data.short[j], data.short[j + 1]);
        return counts;
      };
      const name = short(0);
      const description = short(1);
      const type = short(2);
      const lineTokens = allTokens.subarray(offsets.tokens[i], offsets.tokens[i + 1]);
      const memory: IndexedMemory = {
        file,
        path: path.join(root, file),
        mtimeMs: data.mtimeMs[i],
        size: data.sizes[i],
        name,
        description,
        type,
        bodyTerms: data.bodyTerms.subarray(offsets.body[i], offsets.body[i + 1]),
        bodyFrequencies: data.bodyFrequencies.subarray(offsets.body[i], offsets.body[i + 1]),
        lengths: {
          name: sumValues(name),
          description: sumValues(description),
          type: sumValues(type),
          body: lineTokens.length,
        },
        lineTokens,
        lineStarts: data.lineStarts.subarray(offsets.lines[i], offsets.lines[i + 1]),
      };
      this.#memories.set(file, memory);
      this.#fromCacheFile.add(memory);
    }
    this.documentFrequency.restore(data.documentFrequency);
    this.passageFrequency.restore(data.passageFrequency);
    Object.assign(this.#totalLengths, data.totalLengths);
    this.#passageCount = data.passageCount;
    this.#passageLengthTotal = data.passageLengthTotal;
    this.#adoptPostings(data.postingOffsets, data.postingSlots);
  }

  /** Takes postings from the cache file: slot i is the i-th memory (in insertion order). */
  #adoptPostings(offsets: Uint32Array, slots: Uint32Array): void {
    let slot = 0;
    for (const memory of this.#memories.values()) {
      this.#slots.push(memory);
      this.#slotOf.set(memory, slot++);
    }
    this.#slotStamps = new Uint32Array(Math.max(1024, slot));
    for (let id = 0; id + 1 < offsets.length; id++) {
      if (offsets[id + 1] > offsets[id]) this.#postings.set(id, slots.subarray(offsets[id], offsets[id + 1]));
    }
    this.#livePostings = slots.length;
  }

  #savePersisted(): void {
    if (this.#root === null || !this.#persistDirty || !worthPersisting(this.#memories.size)) return;
    this.#persistDirty = false;
    saveInBackground(this.#root, LEXICAL_CACHE_NAME, lexicalFingerprint(), () => this.#snapshot());
  }

  /**
   * The index in the cache file's columnar form, with term ids renumbered to the terms live
   * memories use (so terms of deleted or edited files do not pile up across processes).
   */
  #snapshot(): PersistedIndex {
    const oldSize = this.dictionary.size;
    const remap = new Int32Array(oldSize).fill(-1);
    const allTerms = this.dictionary.terms();
    const terms: string[] = [];
    for (let id = 0; id < oldSize; id++) {
      if (this.documentFrequency.get(id) > 0) {
        remap[id] = terms.length;
        terms.push(allTerms[id]);
      }
    }
    const memories = [...this.#memories.values()];
    const count = memories.length;
    let shortTotal = 0;
    let bodyTotal = 0;
    let tokenTotal = 0;
    let lineTotal = 0;
    for (const memory of memories) {
      shortTotal += 2 * (memory.name.size + memory.description.size + memory.type.size);
      bodyTotal += memory.bodyTerms.length;
      tokenTotal += memory.lineTokens.length;
      lineTotal += memory.lineStarts.length;
    }
    const short = new Uint32Array(shortTotal);
    const bodyTerms = new Uint32Array(bodyTotal);
    const bodyFrequencies = new Uint32Array(bodyTotal);
    // Token ids are most of the file: 16 bits each while the dictionary allows (23,552 terms at
    // 20,000 generated memories: 95 → 64 MB, and less to read and deserialize).
    const tokens = terms.length <= 0xffff ? new Uint16Array(tokenTotal) : new Uint32Array(tokenTotal);
    const lineStarts = new Uint32Array(lineTotal);
    const offsets = {
      short: new Uint32Array(count * 3 + 1),
      body: new Uint32Array(count + 1),
      tokens: new Uint32Array(count + 1),
      lines: new Uint32Array(count + 1),
    };
    let s = 0;
    let b = 0;
    let t = 0;
    let l = 0;
    memories.forEach((memory, i) => {
      for (const [field, counts] of [memory.name, memory.description, memory.type].entries()) {
        offsets.short[i * 3 + field] = s;
        for (const [id, frequency] of counts) {
          short[s++] = remap[id];
          short[s++] = frequency;
        }
      }
      offsets.short[i * 3 + 3] = s;
      // Renumbering keeps the order of ids except where a dead id sat between: re-sort the body.
      const order = Array.from(memory.bodyTerms.keys()).sort(
        (x, y) => remap[memory.bodyTerms[x]] - remap[memory.bodyTerms[y]],
      );
      for (const k of order) {
        bodyTerms[b] = remap[memory.bodyTerms[k]];
        bodyFrequencies[b++] = memory.bodyFrequencies[k];
      }
      offsets.body[i + 1] = b;
      for (const id of memory.lineTokens) tokens[t++] = remap[id];
      offsets.tokens[i + 1] = t;
      lineStarts.set(memory.lineStarts, l);
      l += memory.lineStarts.length;
      offsets.lines[i + 1] = l;
    });
    const documentFrequency = new Int32Array(terms.length);
    const passageFrequency = new Int32Array(terms.length);
    for (let id = 0; id < oldSize; id++) {
      if (remap[id] < 0) continue;
      documentFrequency[remap[id]] = this.documentFrequency.get(id);
      passageFrequency[remap[id]] = this.passageFrequency.get(id);
    }
    // Postings without stale entries: a term's list holds exactly the memories counted in its
    // document frequency, so the frequencies size the lists.
    const postingOffsets = new Uint32Array(terms.length + 1);
    for (let id = 0; id < terms.length; id++)
      postingOffsets[id + 1] = postingOffsets[id] + documentFrequency[id];
    const postingSlots = new Uint32Array(postingOffsets[terms.length]);
    const filled = postingOffsets.slice(0, terms.length);
    memories.forEach((memory, i) => {
      for (const id of termsAnywhere(memory)) postingSlots[filled[remap[id]]++] = i;
    });
    return {
      terms,
      files: memories.map((memory) => memory.file),
      mtimeMs: Float64Array.from(memories, (memory) => memory.mtimeMs),
      sizes: Float64Array.from(memories, (memory) => memory.size),
      short,
      bodyTerms,
      bodyFrequencies,
      tokens,
      lineStarts,
      offsets,
      documentFrequency,
      passageFrequency,
      postingOffsets,
      postingSlots,
      totalLengths: { ...this.#totalLengths },
      passageCount: this.#passageCount,
      passageLengthTotal: this.#passageLengthTotal,
    };
  }

  /** Indexes one file's text under its header (replacing nothing: call {@link remove} first). */
  add(header: MemoryHeader, text: string): void {
    const parsed = parseFrontmatter(text);
    const description = parsed.description ?? header.description ?? "";
    const type = parsed.type ?? header.type ?? "";
    const name = this.#countTerms(tokenize(header.file.replace(/\.md$/i, "")));
    const descriptionTerms = this.#countTerms(tokenize(description));
    const typeTerms = this.#countTerms(tokenize(type));
    const lines = parsed.body.split("\n");
    const lineTokenList: number[] = [];
    const lineStartList: number[] = [];
    for (const line of lines) {
      const terms = tokenize(line);
      if (terms.length === 0) continue;
      lineStartList.push(lineTokenList.length);
      for (const term of terms) lineTokenList.push(this.dictionary.intern(term));
    }
    let largestId = 0;
    for (const id of lineTokenList) if (id > largestId) largestId = id;
    const lineTokens =
      largestId <= 0xffff ? Uint16Array.from(lineTokenList) : Uint32Array.from(lineTokenList);
    const lineStarts = Uint32Array.from(lineStartList);
    const bodyCounts = new Map<number, number>();
    for (const id of lineTokens) bodyCounts.set(id, (bodyCounts.get(id) ?? 0) + 1);
    const bodyTerms = Uint32Array.from(bodyCounts.keys()).sort();
    const bodyFrequencies = bodyTerms.map((id) => bodyCounts.get(id) ?? 0);
    const memory: IndexedMemory = {
      file: header.file,
      path: header.path,
      mtimeMs: header.mtimeMs,
      size: header.size,
      name,
      description: descriptionTerms,
      type: typeTerms,
      bodyTerms,
      bodyFrequencies,
      lengths: {
        name: sumValues(name),
        description: sumValues(descriptionTerms),
        type: sumValues(typeTerms),
        body: lineTokens.length,
      },
      lineTokens,
      lineStarts,
    };
    this.#memories.set(header.file, memory);
    this.#account(memory, +1);
    this.#version++;
  }

  /** Forgets one file (no-op when unknown). */
  remove(file: string): void {
    const memory = this.#memories.get(file);
    if (!memory) return;
    this.#version++;
    this.#memories.delete(file);
    this.#account(memory, -1);
    this.#unpost(memory);
  }

  /** Adds (+1) or subtracts (-1) a memory's share of the collection statistics. */
  #account(memory: IndexedMemory, sign: 1 | -1): void {
    for (const field of FIELD_NAMES) this.#totalLengths[field] += sign * memory.lengths[field];
    const anywhere = termsAnywhere(memory);
    for (const id of anywhere) this.documentFrequency.add(id, sign);
    if (sign > 0) this.#post(memory, anywhere);
    else this.#stalePostings += anywhere.size;
    forEachPassage(memory, (start, end) => {
      this.#passageCount += sign;
      this.#passageLengthTotal += sign * (end - start);
      // Each term once per passage: a stamp per term id instead of a Set per passage (1.2
      // million passages at 20,000 memories, all garbage).
      const stamp = this.#nextPassageStamp();
      const stamps = this.#passageStamps;
      for (let i = start; i < end; i++) {
        const id = memory.lineTokens[i];
        if (stamps[id] === stamp) continue;
        stamps[id] = stamp;
        this.passageFrequency.add(id, sign);
      }
    });
  }

  /** A fresh stamp for {@link #account}, with the stamp array grown to the dictionary. */
  #nextPassageStamp(): number {
    if (this.#passageStamps.length < this.dictionary.size) {
      const grown = new Uint32Array(Math.max(this.dictionary.size, this.#passageStamps.length * 2));
      grown.set(this.#passageStamps);
      this.#passageStamps = grown;
    }
    return ++this.#passageStamp;
  }

  /**
   * Memories that may contain at least one of `termIds` (an inverted index, so a query touches
   * only the files sharing a word with it, not all 20,000). May include a file that no longer has
   * the term (postings are cleaned lazily); callers score from the file's own statistics anyway.
   */
  candidates(termIds: readonly number[]): IndexedMemory[] {
    const stamp = ++this.#stamp;
    const found: IndexedMemory[] = [];
    for (const id of termIds) {
      const slots = this.#postings.get(id);
      if (!slots) continue;
      for (const slot of slots) {
        if (this.#slotStamps[slot] === stamp) continue;
        this.#slotStamps[slot] = stamp;
        const memory = this.#slots[slot];
        if (memory) found.push(memory);
      }
    }
    return found;
  }

  #post(memory: IndexedMemory, termIds: Iterable<number>): void {
    let slot = this.#freeSlots.pop();
    if (slot === undefined) {
      slot = this.#slots.length;
      this.#slots.push(undefined);
      if (slot >= this.#slotStamps.length) {
        const grown = new Uint32Array(Math.max(1024, this.#slotStamps.length * 2));
        grown.set(this.#slotStamps);
        this.#slotStamps = grown;
      }
    }
    this.#slots[slot] = memory;
    this.#slotOf.set(memory, slot);
    for (const id of termIds) {
      const found = this.#postings.get(id);
      let slots: number[];
      if (Array.isArray(found)) slots = found;
      else {
        slots = found ? Array.from(found) : [];
        this.#postings.set(id, slots);
      }
      slots.push(slot);
      this.#livePostings++;
    }
  }

  /**
   * Turns the posting lists grown as arrays into typed arrays: ~2 million entries at 20,000
   * memories take 8 bytes each plus growth slack as arrays, 4 as a Uint32Array — and a smaller
   * live heap also lowers how far V8 lets garbage pile up before collecting (peak RSS).
   */
  #compactPostings(): void {
    for (const [id, slots] of this.#postings)
      if (Array.isArray(slots)) this.#postings.set(id, Uint32Array.from(slots));
  }

  #unpost(memory: IndexedMemory): void {
    const slot = this.#slotOf.get(memory);
    if (slot === undefined) return;
    this.#slotOf.delete(memory);
    this.#slots[slot] = undefined;
    this.#freeSlots.push(slot);
    // Rebuild once stale entries outnumber live ones: amortized O(1) per change.
    if (this.#stalePostings > this.#livePostings) this.#rebuildPostings();
  }

  #rebuildPostings(): void {
    this.#postings.clear();
    this.#slots = [];
    this.#freeSlots = [];
    this.#slotOf = new WeakMap();
    this.#livePostings = 0;
    this.#stalePostings = 0;
    for (const memory of this.#memories.values()) this.#post(memory, termsAnywhere(memory));
  }

  #countTerms(terms: string[]): Map<number, number> {
    const counts = new Map<number, number>();
    for (const term of terms) {
      const id = this.dictionary.intern(term);
      counts.set(id, (counts.get(id) ?? 0) + 1);
    }
    return counts;
  }
}

/** Every term id of a memory, in any field. */
function termsAnywhere(memory: IndexedMemory): Set<number> {
  const anywhere = new Set<number>(memory.bodyTerms);
  for (const id of memory.name.keys()) anywhere.add(id);
  for (const id of memory.description.keys()) anywhere.add(id);
  for (const id of memory.type.keys()) anywhere.add(id);
  return anywhere;
}

/** Frequency of `termId` in a memory's body (0 when absent). */
export function bodyFrequency(memory: IndexedMemory, termId: number): number {
  const terms = memory.bodyTerms;
  let low = 0;
  let high = terms.length - 1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    const value = terms[middle];
    if (value === termId) return memory.bodyFrequencies[middle];
    if (value < termId) low = middle + 1;
    else high = middle - 1;
  }
  return 0;
}

/** Calls `visit(start, end)` with token offsets of each passage: windows of {@link PASSAGE_LINES} lines. */
export function forEachPassage(memory: IndexedMemory, visit: (start: number, end: number) => void): void {
  const lineCount = memory.lineStarts.length;
  if (lineCount === 0) return;
  const windows = Math.max(1, lineCount - PASSAGE_LINES + 1);
  for (let w = 0; w < windows; w++) {
    const start = memory.lineStarts[w];
    const endLine = w + PASSAGE_LINES;
    const end = endLine < lineCount ? memory.lineStarts[endLine] : memory.lineTokens.length;
    visit(start, end);
  }
}

/**
 * One {@link LexicalIndex} per memory directory, kept for the life of the process (or of the
 * selector that owns it). Pass one explicitly to share or isolate caches.
 */
export class LexicalIndexCache {
  readonly #indexes = new Map<string, LexicalIndex>();
  readonly #persist: boolean;
  /**
   * `persist`: each index loads `<memoryDir>/.memdir-cache/lexical.v8` on first use and saves it
   * in the background after a sync that read or dropped files, so a fresh process re-reads only
   * the files changed since. Off unless asked (a cache of your own stays isolated); the
   * process-wide {@link defaultLexicalIndexCache} persists. `MEMDIR_NO_CACHE=1` turns it off.
   */
  constructor(options: { persist?: boolean } = {}) {
    this.#persist = options.persist === true;
  }
  /** The index of `memoryDir`, created empty on first use. */
  forDirectory(memoryDir: string): LexicalIndex {
    let index = this.#indexes.get(memoryDir);
    if (!index) {
      index = new LexicalIndex(this.#persist ? path.resolve(memoryDir) : null);
      this.#indexes.set(memoryDir, index);
    }
    return index;
  }
  /** Drops every cached index. */
  clear(): void {
    this.#indexes.clear();
  }
}

/** The process-wide cache `createLexicalSelector()` uses unless given another; persisted in the memory dir. */
export const defaultLexicalIndexCache = new LexicalIndexCache({ persist: true });

const LEXICAL_CACHE_NAME = "lexical";

/** The cache file's content: columns over all memories, sliced per memory by `offsets`. */
interface PersistedIndex {
  terms: string[];
  files: string[];
  mtimeMs: Float64Array;
  sizes: Float64Array;
  /** (term id, frequency) pairs of name, description and type, per memory in that order. */
  short: Uint32Array;
  bodyTerms: Uint32Array;
  bodyFrequencies: Uint32Array;
  /** Body token ids in reading order; 16-bit when the dictionary fits. */
  tokens: Uint32Array | Uint16Array;
  lineStarts: Uint32Array;
  offsets: { short: Uint32Array; body: Uint32Array; tokens: Uint32Array; lines: Uint32Array };
  documentFrequency: Int32Array;
  passageFrequency: Int32Array;
  /** Memory indexes containing each term, per term id (`postingOffsets` has one more entry). */
  postingOffsets: Uint32Array;
  postingSlots: Uint32Array;
  totalLengths: Record<FieldName, number>;
  passageCount: number;
  passageLengthTotal: number;
}

function isPersistedIndex(data: PersistedIndex | null): data is PersistedIndex {
  if (data === null || typeof data !== "object" || !Array.isArray(data.terms) || !Array.isArray(data.files))
    return false;
  const count = data.files.length;
  const offsets = data.offsets;
  const isU32 = (value: unknown, length?: number) =>
    value instanceof Uint32Array && (length === undefined || value.length === length);
  if (
    !(data.mtimeMs instanceof Float64Array && data.mtimeMs.length === count) ||
    !(data.sizes instanceof Float64Array && data.sizes.length === count) ||
    !(data.documentFrequency instanceof Int32Array && data.documentFrequency.length === data.terms.length) ||
    !(data.passageFrequency instanceof Int32Array && data.passageFrequency.length === data.terms.length) ||
    !isU32(data.short) ||
    !isU32(data.postingOffsets, data.terms.length + 1) ||
    !isU32(data.postingSlots) ||
    !isU32(data.bodyTerms) ||
    !isU32(data.bodyFrequencies, data.bodyTerms.length) ||
    !(data.tokens instanceof Uint32Array || data.tokens instanceof Uint16Array) ||
    !isU32(data.lineStarts) ||
    typeof offsets !== "object" ||
    offsets === null ||
    !isU32(offsets.short, count * 3 + 1) ||
    !isU32(offsets.body, count + 1) ||
    !isU32(offsets.tokens, count + 1) ||
    !isU32(offsets.lines, count + 1) ||
    typeof data.passageCount !== "number" ||
    typeof data.passageLengthTotal !== "number" ||
    typeof data.totalLengths !== "object" ||
    data.totalLengths === null
  )
    return false;
  // Offsets must stay inside their columns. Term ids and slots are not checked one by one (24
  // million at 20,000 memories): one out of range only reads as a term no memory has.
  const fits = (column: Uint32Array, within: { length: number }) =>
    column[0] === 0 &&
    column.every((value, i) => value <= within.length && (i === 0 || value >= column[i - 1]));
  if (
    !fits(offsets.short, data.short) ||
    !fits(offsets.body, data.bodyTerms) ||
    !fits(offsets.tokens, data.tokens) ||
    !fits(offsets.lines, data.lineStarts) ||
    !fits(data.postingOffsets, data.postingSlots)
  )
    return false;
  return true;
}

let cachedLexicalFingerprint: string | null = null;
/** Changes whenever tokenizing or indexing changes, so a cache file from older code is rebuilt. */
function lexicalFingerprint(): string {
  const probe =
    "Integration tests went to the database; login.integration.test.ts paintings ＡＢＣ 登录模块的集成测试 そうですね";
  cachedLexicalFingerprint ??= codeFingerprint(
    "lexical/4",
    PASSAGE_LINES,
    INDEX_MAX_BYTES,
    tokenizeDetailed,
    stemEnglish,
    [...ENGLISH_STOP_WORDS],
    tokenize(probe),
    parseFrontmatter,
    LexicalIndex.prototype.add,
    parseFrontmatter("---\nname: n\ndescription: d\ntype: user\n---\nbody"),
  );
  return cachedLexicalFingerprint;
}

/**
 * The first {@link INDEX_MAX_BYTES} of a file as text, read with one bounded `read` (never the
 * whole file). A file cut at the cap ends at its last complete line, so no half word or broken
 * UTF-8 sequence is indexed.
 */
async function readIndexedPart(filePath: string): Promise<string> {
  const fd = await openFile(filePath, "r");
  try {
    // One byte past the cap tells a file of exactly the cap from a longer one. Buffers are
    // reused: a fresh 64 KB per file would be 1.3 GB of short-lived allocations at 20,000 files.
    const buffer = spareBuffers.pop() ?? Buffer.allocUnsafeSlow(INDEX_MAX_BYTES + 1);
    try {
      let total = 0;
      while (total < buffer.length) {
        const { bytesRead } = await readInto(fd, buffer, total, buffer.length - total, total);
        if (bytesRead === 0) return buffer.toString("utf8", 0, total);
        total += bytesRead;
      }
      // Longer than the cap: keep its whole lines (all of the cap when it holds a single line).
      const lastNewline = buffer.lastIndexOf(0x0a, INDEX_MAX_BYTES - 1);
      return buffer.toString("utf8", 0, lastNewline > 0 ? lastNewline : INDEX_MAX_BYTES);
    } finally {
      if (spareBuffers.length < READ_CONCURRENCY) spareBuffers.push(buffer);
    }
  } finally {
    await closeFile(fd);
  }
}

function sumValues(counts: Map<number, number>): number {
  let total = 0;
  for (const value of counts.values()) total += value;
  return total;
}

function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted)
    throw new MemdirError("aborted", "recall: lexical selection aborted", { cause: signal.reason });
}

async function forEachBounded<T>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const workers = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const item = items[next++];
      await work(item);
    }
  });
  await Promise.all(workers);
}
