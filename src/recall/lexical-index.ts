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
import { mapBounded } from "../memdir/scan-list.ts";
import type { MemoryHeader } from "../types.ts";
import { sortedTimes } from "./lexical-stages.ts";
import {
  type FieldName,
  forEachPassage,
  forEachTermAnywhere,
  IndexedMemory,
  type MemoryRecord,
  PASSAGE_LINES,
  packRecord,
  RECORD_HEADER,
  recordLength,
} from "./memory-record.ts";
import { PostingLists } from "./posting-lists.ts";
import { ENGLISH_STOP_WORDS, forEachTerm, stemEnglish, tokenize, tokenizeDetailed } from "./tokenize.ts";

/**
 * An incremental, in-memory index of one memory directory for the lexical selector.
 *
 * Each file is read and tokenized once per `(path, mtimeMs, size)`; a file that changes behind
 * our back gets a new key from the next header scan and is re-read, a file that disappears is
 * dropped. Only token statistics are kept (one packed record per memory, see memory-record.ts),
 * never raw text, so 20,000 memories cost tens of MB rather than the files' size in UTF-16 strings.
 */

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
  /** The term of each id (the same strings as the map's keys, so ~8 bytes per term). */
  readonly #terms: string[] = [];
  /** Typo look-ups, valid while the dictionary has not grown (ids are never reused). */
  readonly #nearMemo = new Map<string, { size: number; ids: number[] }>();
  intern(term: string): number {
    let id = this.#ids.get(term);
    if (id === undefined) {
      id = this.#ids.size;
      this.#ids.set(term, id);
      this.#terms.push(term);
    }
    return id;
  }
  lookup(term: string): number | undefined {
    return this.#ids.get(term);
  }
  /** Every term, in id order. */
  terms(): string[] {
    return [...this.#terms];
  }
  /** The term of `id` (`undefined` for an id never handed out). */
  term(id: number): string | undefined {
    return this.#terms[id];
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
  // Inverted index: term id → slots of the memories containing it (a slot is an index into #slots).
  readonly #postings = new PostingLists();
  #slots: (IndexedMemory | undefined)[] = [];
  #freeSlots: number[] = [];
  // Per term id: the stamp of the memory last counted (each term once per memory in #account).
  #termStamps: Uint32Array = new Uint32Array(1024);
  #termStamp = 0;
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
  #sortedTimes: Float64Array | null = null;

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
      this.#savePersisted();
    }
    // Only a complete sync is remembered (an abort or a failed read leaves the next one to redo it).
    this.#syncedHeaders = headers.slice();
    this.#syncedVersion = this.#version;
    this.#headerByFile = null;
    this.#sortedTimes = null;
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

  /**
   * Every mtime of the last completed {@link sync}'s headers, ascending (built once, reused by
   * every query until the next sync that changes something). Callers check {@link syncedWith} first.
   */
  syncedSortedTimes(): Float64Array {
    this.#sortedTimes ??= sortedTimes(this.#syncedHeaders ?? []);
    return this.#sortedTimes;
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
    // Up to READ_CONCURRENCY reads in flight, but files are indexed in the order given: term ids
    // and posting order then never depend on which read finished first, so equal scores break
    // the same way in every process (feedback words of equal weight, equal whole-file scores).
    const reads = new Array<Promise<string | null> | undefined>(stale.length);
    const startRead = (i: number) => {
      if (i < stale.length) reads[i] = readIndexedPart(stale[i].path).catch(() => null);
    };
    for (let i = 0; i < READ_CONCURRENCY; i++) startRead(i);
    for (let i = 0; i < stale.length; i++) {
      throwIfAborted(signal);
      const text = await reads[i];
      reads[i] = undefined;
      startRead(i + READ_CONCURRENCY);
      throwIfAborted(signal);
      this.remove(stale[i].file);
      if (text !== null && text !== undefined) this.add(stale[i], text);
    }
    // Common case: the caller passed every indexed file, so nothing can be missing.
    const missing =
      this.#memories.size <= wanted.size && headers.every((h) => this.#memories.has(h.file))
        ? []
        : [...this.#memories.keys()].filter((file) => !wanted.has(file));
    await mapBounded(missing, READ_CONCURRENCY, undefined, async (file) => {
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
    for (let i = 0; i < data.files.length; i++) {
      const file = data.files[i];
      // Records stay views into the file's two columns (no copy).
      const column = data.recordWide[i] === 1 ? data.wideRecords : data.narrowRecords;
      const start = data.recordStarts[i];
      const record = column.subarray(start, start + recordLength(column, start));
      const memory = new IndexedMemory(file, path.join(root, file), data.mtimeMs[i], data.sizes[i], record);
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
      memory.slot = slot++;
    }
    this.#slotStamps = new Uint32Array(Math.max(1024, slot));
    this.#postings.adopt(offsets, slots);
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
    // Each record keeps its width (renumbering only lowers ids): 16-bit ones in one column,
    // 32-bit ones in the other.
    let narrowTotal = 0;
    let wideTotal = 0;
    for (const memory of memories) {
      if (memory.record instanceof Uint16Array) narrowTotal += memory.record.length;
      else wideTotal += memory.record.length;
    }
    const narrowRecords = new Uint16Array(narrowTotal);
    const wideRecords = new Uint32Array(wideTotal);
    const recordStarts = new Uint32Array(count);
    const recordWide = new Uint8Array(count);
    let narrowAt = 0;
    let wideAt = 0;
    memories.forEach((memory, i) => {
      const wide = !(memory.record instanceof Uint16Array);
      const target = wide ? wideRecords : narrowRecords;
      const at = wide ? wideAt : narrowAt;
      recordStarts[i] = at;
      recordWide[i] = wide ? 1 : 0;
      writeRenumbered(memory, remap, target, at);
      if (wide) wideAt += memory.record.length;
      else narrowAt += memory.record.length;
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
      this.#forEachUniqueTerm(memory, (id) => {
        postingSlots[filled[remap[id]]++] = i;
      });
    });
    return {
      terms,
      files: memories.map((memory) => memory.file),
      mtimeMs: Float64Array.from(memories, (memory) => memory.mtimeMs),
      sizes: Float64Array.from(memories, (memory) => memory.size),
      narrowRecords,
      wideRecords,
      recordStarts,
      recordWide,
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
    let tokenCount = 0;
    let lineCount = 0;
    const dictionary = this.dictionary;
    // Terms go straight into the scratch buffer (no array per line, no object per token).
    const internTerm = (term: string) => {
      if (tokenCount >= tokenScratch.length) tokenScratch = grow(tokenScratch, tokenCount + 1);
      tokenScratch[tokenCount++] = dictionary.intern(term);
    };
    for (const line of lines) {
      const lineStart = tokenCount;
      forEachTerm(line, internTerm);
      if (tokenCount === lineStart) continue;
      if (lineCount >= lineScratch.length) lineScratch = grow(lineScratch, lineCount + 1);
      lineScratch[lineCount++] = lineStart;
    }
    const record = packRecord({
      shortFields: [name, descriptionTerms, typeTerms],
      tokens: tokenScratch,
      tokenCount,
      lineStarts: lineScratch,
      lineCount,
    });
    const memory = new IndexedMemory(header.file, header.path, header.mtimeMs, header.size, record);
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
    this.#totalLengths.name += sign * memory.nameLength;
    this.#totalLengths.description += sign * memory.descriptionLength;
    this.#totalLengths.type += sign * memory.typeLength;
    this.#totalLengths.body += sign * memory.tokenCount;
    let distinct = 0;
    this.#forEachUniqueTerm(memory, (id) => {
      this.documentFrequency.add(id, sign);
      distinct++;
    });
    if (sign > 0) this.#post(memory, distinct);
    else this.#stalePostings += distinct;
    const record = memory.record;
    const tokensAt = memory.tokensAt;
    forEachPassage(memory, (start, end) => {
      this.#passageCount += sign;
      this.#passageLengthTotal += sign * (end - start);
      // Each term once per passage: a stamp per term id instead of a Set per passage (1.2
      // million passages at 20,000 memories, all garbage).
      const stamp = this.#nextPassageStamp();
      const stamps = this.#passageStamps;
      for (let i = tokensAt + start; i < tokensAt + end; i++) {
        const id = record[i];
        if (stamps[id] === stamp) continue;
        stamps[id] = stamp;
        this.passageFrequency.add(id, sign);
      }
    });
  }

  /** Calls `visit` once per distinct term id of `memory` (a term may sit in several fields). */
  #forEachUniqueTerm(memory: IndexedMemory, visit: (termId: number) => void): void {
    if (this.#termStamps.length < this.dictionary.size)
      this.#termStamps = grow(this.#termStamps, this.dictionary.size);
    const stamps = this.#termStamps;
    const stamp = ++this.#termStamp;
    forEachTermAnywhere(memory, (termId) => {
      if (stamps[termId] === stamp) return;
      stamps[termId] = stamp;
      visit(termId);
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
   * Memories that may contain at least one of `terms` (an inverted index, so a query touches
   * only the files sharing a word with it, not all 20,000). May include a file that no longer has
   * the term (postings are cleaned lazily); callers score from the file's own statistics anyway.
   */
  candidates(terms: readonly { id: number }[]): IndexedMemory[] {
    const stamp = ++this.#stamp;
    const stamps = this.#slotStamps;
    const slots = this.#slots;
    const found: IndexedMemory[] = [];
    const visit = (slot: number) => {
      if (stamps[slot] === stamp) return;
      stamps[slot] = stamp;
      const memory = slots[slot];
      if (memory) found.push(memory);
    };
    for (let t = 0; t < terms.length; t++) this.#postings.forEachSlot(terms[t].id, visit);
    return found;
  }

  #post(memory: IndexedMemory, distinctTerms: number): void {
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
    memory.slot = slot;
    this.#postings.post(memory, slot);
    this.#livePostings += distinctTerms;
  }

  #unpost(memory: IndexedMemory): void {
    const slot = memory.slot;
    if (slot < 0) return;
    memory.slot = -1;
    this.#slots[slot] = undefined;
    this.#freeSlots.push(slot);
    // Rebuild once stale entries outnumber live ones: amortized O(1) per change.
    if (this.#stalePostings > this.#livePostings) this.#rebuildPostings();
  }

  #rebuildPostings(): void {
    this.#postings.clear();
    for (const memory of this.#slots) if (memory) memory.slot = -1;
    this.#slots = [];
    this.#freeSlots = [];
    this.#livePostings = 0;
    this.#stalePostings = 0;
    for (const memory of this.#memories.values()) {
      let distinct = 0;
      this.#forEachUniqueTerm(memory, () => {
        distinct++;
      });
      this.#post(memory, distinct);
    }
  }

  /** (term id, frequency) pairs in first-occurrence order. */
  #countTerms(terms: string[]): number[] {
    const pairs: number[] = [];
    for (const term of terms) {
      const id = this.dictionary.intern(term);
      let i = 0;
      while (i < pairs.length && pairs[i] !== id) i += 2;
      if (i < pairs.length) pairs[i + 1]++;
      else pairs.push(id, 1);
    }
    return pairs;
  }
}

// Scratch buffers of LexicalIndex.add (body tokens and line starts of the file being indexed):
// reused, so indexing 20,000 files builds no per-file number arrays.
let tokenScratch: Uint32Array = new Uint32Array(16 * 1024);
let lineScratch: Uint32Array = new Uint32Array(1024);

function grow(array: Uint32Array, atLeast: number): Uint32Array {
  const grown = new Uint32Array(Math.max(atLeast, array.length * 2));
  grown.set(array);
  return grown;
}

/**
 * Writes `memory`'s record into `target` at `at` with term ids renumbered by `remap`. Body terms
 * are re-sorted: renumbering keeps the order of ids except where a dead id sat between.
 */
function writeRenumbered(memory: IndexedMemory, remap: Int32Array, target: MemoryRecord, at: number): void {
  const record = memory.record;
  target.set(record, at);
  for (let i = RECORD_HEADER; i < memory.bodyTermsAt; i += 2) target[at + i] = remap[record[i]];
  const count = memory.bodyTermCount;
  const order = Array.from({ length: count }, (_, k) => k).sort(
    (x, y) => remap[record[memory.bodyTermsAt + x]] - remap[record[memory.bodyTermsAt + y]],
  );
  for (let k = 0; k < count; k++) {
    target[at + memory.bodyTermsAt + k] = remap[record[memory.bodyTermsAt + order[k]]];
    target[at + memory.bodyFrequenciesAt + k] = record[memory.bodyFrequenciesAt + order[k]];
  }
  for (let i = memory.tokensAt; i < memory.tokensAt + memory.tokenCount; i++)
    target[at + i] = remap[record[i]];
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
  /** The index of `memoryDir`, created empty on first use. @internal */
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

/** The cache file's content: one record per memory (see memory-record.ts) in two columns by width. */
interface PersistedIndex {
  terms: string[];
  files: string[];
  mtimeMs: Float64Array;
  sizes: Float64Array;
  narrowRecords: Uint16Array;
  wideRecords: Uint32Array;
  /** Where memory i's record starts in the column `recordWide[i]` names (1: wide). */
  recordStarts: Uint32Array;
  recordWide: Uint8Array;
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
  const isU32 = (value: unknown, length?: number) =>
    value instanceof Uint32Array && (length === undefined || value.length === length);
  if (
    !(data.mtimeMs instanceof Float64Array && data.mtimeMs.length === count) ||
    !(data.sizes instanceof Float64Array && data.sizes.length === count) ||
    !(data.documentFrequency instanceof Int32Array && data.documentFrequency.length === data.terms.length) ||
    !(data.passageFrequency instanceof Int32Array && data.passageFrequency.length === data.terms.length) ||
    !(data.narrowRecords instanceof Uint16Array) ||
    !isU32(data.wideRecords) ||
    !isU32(data.recordStarts, count) ||
    !(data.recordWide instanceof Uint8Array && data.recordWide.length === count) ||
    !isU32(data.postingOffsets, data.terms.length + 1) ||
    !isU32(data.postingSlots) ||
    typeof data.passageCount !== "number" ||
    typeof data.passageLengthTotal !== "number" ||
    typeof data.totalLengths !== "object" ||
    data.totalLengths === null
  )
    return false;
  // Every record must lie inside its column. Term ids and slots are not checked one by one (17
  // million at 20,000 memories): one out of range only reads as a term no memory has.
  for (let i = 0; i < count; i++) {
    const column = data.recordWide[i] === 1 ? data.wideRecords : data.narrowRecords;
    const length = recordLength(column, data.recordStarts[i]);
    if (length < 0 || data.recordStarts[i] + length > column.length) return false;
  }
  const offsets = data.postingOffsets;
  return (
    offsets[0] === 0 &&
    offsets.every((value, i) => value <= data.postingSlots.length && (i === 0 || value >= offsets[i - 1]))
  );
}

let cachedLexicalFingerprint: string | null = null;
/** Changes whenever tokenizing or indexing changes, so a cache file from older code is rebuilt. */
function lexicalFingerprint(): string {
  const probe =
    "Integration tests went to the database; login.integration.test.ts paintings ＡＢＣ 登录模块的集成测试 そうですね";
  cachedLexicalFingerprint ??= codeFingerprint(
    "lexical/5",
    PASSAGE_LINES,
    INDEX_MAX_BYTES,
    tokenizeDetailed,
    forEachTerm,
    stemEnglish,
    [...ENGLISH_STOP_WORDS],
    tokenize(probe),
    parseFrontmatter,
    LexicalIndex.prototype.add,
    packRecord,
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

function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted)
    throw new MemdirError("aborted", "recall: lexical selection aborted", { cause: signal.reason });
}
