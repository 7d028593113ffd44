import path from "node:path";
import { parseFrontmatter } from "../../../memdir/format/frontmatter.ts";
import { MEMORY_TYPES, type MemoryHeader } from "../../../types.ts";
import { Counter, grow, TermDictionary } from "./dictionary.ts";
import {
  bodyTokens,
  type FieldName,
  forEachPassage,
  forEachTermAnywhere,
  IndexedMemory,
  packRecord,
  recordLength,
  TokenBuffer,
} from "./memory-record.ts";
import { PostingLists } from "./posting-lists.ts";
import { TermScanner } from "./term-scanner.ts";
import type { PersistedIndex } from "./types.ts";

/**
 * The indexed memories of one directory and their collection statistics: add, remove, and the
 * candidates of a query (an inverted index). Only token statistics are kept (one packed record
 * per memory, see memory-record.ts), never raw text, so 20,000 memories cost tens of MB rather
 * than the files' size in UTF-16 strings. Reading files and keeping in step with the disk is
 * {@link LexicalIndex}'s part.
 */
export class Corpus {
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
  /** Adds and removes so far (a sync remembers it to tell whether anything changed since). */
  #version = 0;
  // Scratch of add (the body tokenizer with its buffers and word table, the term counts of the
  // file being indexed): reused, so indexing 20,000 files builds no per-file number arrays.
  readonly #scanner = new TermScanner(this.dictionary);
  #countScratch: Uint32Array = new Uint32Array(4096);
  #distinctScratch: Uint32Array = new Uint32Array(4096);
  readonly #tokenBuffer = new TokenBuffer();

  get size(): number {
    return this.#memories.size;
  }
  get version(): number {
    return this.#version;
  }
  get passageCount(): number {
    return this.#passageCount;
  }
  get passageLengthTotal(): number {
    return this.#passageLengthTotal;
  }
  get averagePassageLength(): number {
    return this.#passageCount > 0 ? this.#passageLengthTotal / this.#passageCount : 1;
  }
  averageLength(field: FieldName): number {
    return this.#memories.size > 0 ? this.#totalLengths[field] / this.#memories.size : 1;
  }
  /** Summed lengths per field over every memory (a copy). */
  totalLengths(): Record<FieldName, number> {
    return { ...this.#totalLengths };
  }
  get(file: string): IndexedMemory | undefined {
    return this.#memories.get(file);
  }
  has(file: string): boolean {
    return this.#memories.has(file);
  }
  /** Every indexed file name, in insertion order. */
  files(): IterableIterator<string> {
    return this.#memories.keys();
  }
  /** Every indexed memory, in insertion order. */
  memories(): IterableIterator<IndexedMemory> {
    return this.#memories.values();
  }

  /**
   * Adopts a cache file's content into this (still empty) corpus: the dictionary with its ids,
   * every memory's statistics, the collection totals and the postings. Returns the memories,
   * which the caller still checks against the disk. `root`: the memory dir the files are in.
   */
  adopt(data: PersistedIndex, root: string): IndexedMemory[] {
    for (const term of data.terms) this.dictionary.intern(term);
    const adopted: IndexedMemory[] = [];
    for (let i = 0; i < data.files.length; i++) {
      const file = data.files[i];
      // Records stay views into the file's two columns (no copy).
      const column = data.recordWide[i] === 1 ? data.wideRecords : data.narrowRecords;
      const start = data.recordStarts[i];
      const record = column.subarray(start, start + recordLength(column, start));
      const memory = new IndexedMemory(file, path.join(root, file), data.mtimeMs[i], data.sizes[i], record);
      this.#memories.set(file, memory);
      adopted.push(memory);
    }
    this.documentFrequency.restore(data.documentFrequency);
    this.passageFrequency.restore(data.passageFrequency);
    Object.assign(this.#totalLengths, data.totalLengths);
    this.#passageCount = data.passageCount;
    this.#passageLengthTotal = data.passageLengthTotal;
    this.#adoptPostings(data.postingOffsets, data.postingSlots);
    return adopted;
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

  /** Indexes one file's text under its header (replacing nothing: call {@link remove} first). */
  add(header: MemoryHeader, text: string): void {
    const parsed = parseFrontmatter(text);
    const description = parsed.description ?? header.description ?? "";
    // The short fields through the same scanner: the terms of tokenize(), interned in the same order.
    // The type is a label, not a word of the memory: its field stays empty, and the name is read
    // without its type prefix (docs/design.md#memory-types-are-no-evidence).
    const name = this.#countTerms(nameWithoutType(header.file));
    const descriptionTerms = this.#countTerms(description);
    const typeTerms = this.#countTerms("");
    // The body is the end of the text (parseFrontmatter's body is always a suffix of it).
    const body = this.#scanner.scan(text, text.length - parsed.body.length);
    const { tokenCount } = body;
    if (this.#countScratch.length < this.dictionary.size)
      this.#countScratch = grow(this.#countScratch, this.dictionary.size);
    if (this.#distinctScratch.length < tokenCount)
      this.#distinctScratch = grow(this.#distinctScratch, tokenCount);
    const record = packRecord({
      shortFields: [name, descriptionTerms, typeTerms],
      tokens: body.tokens,
      tokenCount,
      lineStarts: body.lineStarts,
      lineCount: body.lineCount,
      counts: this.#countScratch,
      distinct: this.#distinctScratch,
    });
    const memory = new IndexedMemory(header.file, header.path, header.mtimeMs, header.size, record);
    this.#memories.set(header.file, memory);
    // The scanner's tokens are the record's, undecoded: no need to read them back out of it.
    this.#account(memory, +1, body.tokens);
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

  /**
   * Adds (+1) or subtracts (-1) a memory's share of the collection statistics. `tokens`: its body
   * tokens as term ids, read from its record unless the caller has them.
   */
  #account(memory: IndexedMemory, sign: 1 | -1, tokens = bodyTokens(memory, this.#tokenBuffer)): void {
    this.#totalLengths.name += sign * memory.nameLength;
    this.#totalLengths.description += sign * memory.descriptionLength;
    this.#totalLengths.type += sign * memory.typeLength;
    this.#totalLengths.body += sign * memory.tokenCount;
    let distinct = 0;
    this.forEachUniqueTerm(memory, (id) => {
      this.documentFrequency.add(id, sign);
      distinct++;
    });
    if (sign > 0) this.#post(memory, distinct);
    else this.#stalePostings += distinct;
    forEachPassage(memory, (start, end) => {
      this.#passageCount += sign;
      this.#passageLengthTotal += sign * (end - start);
      // Each term once per passage: a stamp per term id instead of a Set per passage (1.2
      // million passages at 20,000 memories, all garbage).
      const stamp = this.#nextPassageStamp();
      const stamps = this.#passageStamps;
      for (let i = start; i < end; i++) {
        const id = tokens[i];
        if (stamps[id] === stamp) continue;
        stamps[id] = stamp;
        this.passageFrequency.add(id, sign);
      }
    });
  }

  /** Calls `visit` once per distinct term id of `memory` (a term may sit in several fields). */
  forEachUniqueTerm(memory: IndexedMemory, visit: (termId: number) => void): void {
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

  /**
   * Calls `visit` with each live memory whose posting list of `termId` holds it — what
   * {@link candidates} of that one term lists, without making the list (the term-bridge stage
   * walks thousands of postings a query at 20,000 memories).
   */
  forEachMemory(termId: number, visit: (memory: IndexedMemory) => void): void {
    const slots = this.#slots;
    this.#postings.forEachSlot(termId, (slot) => {
      const memory = slots[slot];
      if (memory) visit(memory);
    });
  }

  /**
   * Sets `bit` in `masks[slot]` for the posting slot of each live memory whose posting list of
   * `termId` holds it (slots past the array's end are left out): what {@link candidates} of that
   * one term would list, without making the list.
   */
  markPostings(termId: number, masks: Uint32Array, bit: number): void {
    const slots = this.#slots;
    this.#postings.forEachSlot(termId, (slot) => {
      if (slots[slot]) masks[slot] |= bit;
    });
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
      this.forEachUniqueTerm(memory, () => {
        distinct++;
      });
      this.#post(memory, distinct);
    }
  }

  /** The (term id, frequency) pairs of `text`, in first-occurrence order. */
  #countTerms(text: string): number[] {
    const { tokens, tokenCount } = this.#scanner.scan(text);
    const pairs: number[] = [];
    for (let t = 0; t < tokenCount; t++) {
      const id = tokens[t];
      let i = 0;
      while (i < pairs.length && pairs[i] !== id) i += 2;
      if (i < pairs.length) pairs[i + 1]++;
      else pairs.push(id, 1);
    }
    return pairs;
  }
}

// `user-`, `feedback_`, … at the start of a file's own name, or the whole name (`user.md`).
const TYPE_PREFIX = new RegExp(`^(?:${MEMORY_TYPES.join("|")})(?:[-_]|$)`, "i");

/**
 * The text of a memory's file name as the index reads it: the path without `.md`, and the file's
 * own name without a leading memory type (`feedback-pnpm-never-npm.md` → `pnpm-never-npm`). A
 * derived name starts with the type (memory-names.ts `slugFor`), so every memory of a type shared
 * that word, and a prompt saying "user" or "feedback" about the app picked them on it alone
 * (docs/design.md#memory-types-are-no-evidence).
 */
export function nameWithoutType(file: string): string {
  const stem = file.replace(/\.md$/i, "");
  const slash = stem.lastIndexOf("/");
  return stem.slice(0, slash + 1) + stem.slice(slash + 1).replace(TYPE_PREFIX, "");
}
