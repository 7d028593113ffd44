import fs from "node:fs/promises";
import { MemdirError } from "../errors.ts";
import { parseFrontmatter } from "../memdir/frontmatter.ts";
import type { MemoryHeader } from "../types.ts";
import { tokenize } from "./tokenize.ts";

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
  /** Body term ids in reading order, line after line; `lineStarts[i]` is where line i begins. */
  lineTokens: Uint32Array;
  lineStarts: Uint32Array;
}

/** Body lines per passage (sliding by one line): a question usually lands on one or two turns. */
export const PASSAGE_LINES = 2;

/** How many files are read at once while (re)indexing. */
const READ_CONCURRENCY = 16;

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
  readonly #postings = new Map<number, number[]>();
  #slots: (IndexedMemory | undefined)[] = [];
  #freeSlots: number[] = [];
  #slotOf = new WeakMap<IndexedMemory, number>();
  #slotStamps = new Uint32Array(1024);
  #stamp = 0;
  #livePostings = 0;
  #stalePostings = 0;

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
    const stale: MemoryHeader[] = [];
    const wanted = new Set<string>();
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
      }
    }
    await forEachBounded(stale, READ_CONCURRENCY, async (header) => {
      throwIfAborted(signal);
      const text = await fs.readFile(header.path, { encoding: "utf8", signal }).catch((error: unknown) => {
        if (signal?.aborted) throw error;
        return null;
      });
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
    const lineTokens = Uint32Array.from(lineTokenList);
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
  }

  /** Forgets one file (no-op when unknown). */
  remove(file: string): void {
    const memory = this.#memories.get(file);
    if (!memory) return;
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
      const seen = new Set<number>();
      for (let i = start; i < end; i++) seen.add(memory.lineTokens[i]);
      for (const id of seen) this.passageFrequency.add(id, sign);
    });
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
      let slots = this.#postings.get(id);
      if (!slots) {
        slots = [];
        this.#postings.set(id, slots);
      }
      slots.push(slot);
      this.#livePostings++;
    }
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
  /** The index of `memoryDir`, created empty on first use. */
  forDirectory(memoryDir: string): LexicalIndex {
    let index = this.#indexes.get(memoryDir);
    if (!index) {
      index = new LexicalIndex();
      this.#indexes.set(memoryDir, index);
    }
    return index;
  }
  /** Drops every cached index. */
  clear(): void {
    this.#indexes.clear();
  }
}

/** The process-wide cache `createLexicalSelector()` uses unless given another. */
export const defaultLexicalIndexCache = new LexicalIndexCache();

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
