import type { MemoryHeader } from "../../../types.ts";
import { BridgeScratch } from "./bridge-scratch.ts";
import { grow } from "./dictionary.ts";
import { type IndexedMemory, TokenBuffer } from "./memory-record.ts";
import { TermSimilarities } from "./related-similarities.ts";
import type { QueryTerm } from "./types.ts";

/**
 * Buffers that ranking one query reuses instead of allocating: at 20,000 memories, fresh arrays
 * per query were megabytes of garbage, and garbage that survives into the old generation is
 * peak RSS. One set belongs to each {@link LexicalIndex}; ranking is synchronous, so two queries
 * never use it at once.
 */
export class RankScratch {
  /** Whole-file scores of the current query's matches (BM25F stage). */
  #wholeFile: Float64Array = new Float64Array(1024);
  /** Per posting slot, which query terms its memory's postings hold (BM25F stage; zero between queries). */
  #termMasks: Uint32Array = new Uint32Array(1024);
  readonly #headers = new HeaderMemo();
  readonly related = new RelatedScratch();
  readonly passage = new PassageScratch();
  readonly bridges = new BridgeScratch();

  /** The whole-file score buffer, with room for at least `count` matches (contents kept only while it fits). */
  wholeFileScores(count: number): Float64Array {
    if (this.#wholeFile.length < count)
      this.#wholeFile = new Float64Array(Math.max(count, this.#wholeFile.length * 2));
    return this.#wholeFile;
  }

  /** The header of each memory in `byFile`, remembered per posting slot while `byFile` is the map given. */
  headersFor(byFile: ReadonlyMap<string, MemoryHeader>): HeaderMemo {
    this.#headers.use(byFile);
    return this.#headers;
  }

  /** The term-mask buffer, with room for `slots` slots (all zero). */
  termMasks(slots: number): Uint32Array {
    if (this.#termMasks.length < slots)
      this.#termMasks = new Uint32Array(Math.max(slots, this.#termMasks.length * 2));
    return this.#termMasks;
  }
}

/** Scratch of the related-word stage (stage-related.ts). */
export class RelatedScratch {
  // One entry per query word (the stage takes at most 12).
  bestSimilarity: Float64Array = new Float64Array(16);
  bestRow: Int32Array = new Int32Array(16);
  description: Float64Array = new Float64Array(16);
  queryIds: Int32Array = new Int32Array(16);
  /** The description's best match per query word, and the words it has one for (a bit each). */
  readonly descriptionMask = new Uint16Array(1);
  /** Best match per line and query word of the memory being scored, valid where the line's mask says. */
  lines: Float32Array = new Float32Array(1024);
  /** Per line of the memory being scored: the query words it has a countable match for. */
  lineMasks: Uint16Array = new Uint16Array(256);
  /** The best related passage of the memory being scored. */
  readonly passage = { score: 0, strongestRelated: -1 };
  /** Similarities of index terms to the current query's words. */
  readonly similarities = new TermSimilarities();
  /** The body tokens of the memory being scored. */
  readonly tokens = new TokenBuffer();

  /** Sizes the per-query-word buffers for `width` words. */
  fit(width: number): void {
    if (this.bestSimilarity.length >= width) return;
    this.bestSimilarity = new Float64Array(width);
    this.bestRow = new Int32Array(width);
    this.description = new Float64Array(width);
    this.queryIds = new Int32Array(width);
  }
}

/**
 * Buffers `bestPassageScore` (stage-passage.ts) reuses from one memory to the next (the index's ranking
 * scratch holds one): the per-line counts, and each wanted term's slot by term id.
 */
export class PassageScratch {
  readonly wanted: QueryTerm[] = [];
  /** The body tokens of the memory being scored. */
  readonly tokens = new TokenBuffer();
  slotOf: Int32Array = new Int32Array(0);
  stampOf: Uint32Array = new Uint32Array(0);
  #stamp = 0;
  #counts: Uint16Array = new Uint16Array(1024);
  #lineLength: Uint32Array = new Uint32Array(256);

  /** Marks the ids of `wanted` with a fresh stamp (arrays grown to `size` term ids) and returns it. */
  begin(size: number, wanted: readonly QueryTerm[]): number {
    if (this.stampOf.length < size) {
      this.stampOf = grow(this.stampOf, size);
      this.slotOf = new Int32Array(this.stampOf.length);
    }
    if (++this.#stamp === 0xffffffff) {
      this.stampOf.fill(0);
      this.#stamp = 1;
    }
    for (let slot = 0; slot < wanted.length; slot++) {
      const id = wanted[slot].id;
      if (id < 0 || id >= this.stampOf.length) continue;
      this.stampOf[id] = this.#stamp;
      this.slotOf[id] = slot;
    }
    return this.#stamp;
  }

  /** Zeroed counts for `lineCount` × `width`, and a line-length buffer of `lineCount`. */
  fit(lineCount: number, width: number): { counts: Uint16Array; lineLength: Uint32Array } {
    if (this.#counts.length < lineCount * width) this.#counts = new Uint16Array(lineCount * width * 2);
    else this.#counts.fill(0, 0, lineCount * width);
    if (this.#lineLength.length < lineCount) this.#lineLength = new Uint32Array(lineCount * 2);
    return { counts: this.#counts, lineLength: this.#lineLength };
  }
}

/**
 * The caller's header of each indexed memory, by posting slot. The synced header map is one
 * object per sync, so while the same map comes back its answers hold, and looking 20,000 file
 * names up in it per query (most of the BM25F stage's time at that size) happens once per sync.
 */
export class HeaderMemo {
  #byFile: ReadonlyMap<string, MemoryHeader> | null = null;
  #memories: (IndexedMemory | undefined)[] = [];
  #headers: (MemoryHeader | null)[] = [];

  use(byFile: ReadonlyMap<string, MemoryHeader>): void {
    if (this.#byFile === byFile) return;
    this.#byFile = byFile;
    this.#memories = [];
    this.#headers = [];
  }

  /**
   * `memory`'s header, or null when the caller passed none for its file or only one of another
   * version (other mtime or size): only files the caller passed count, and only as they are now
   * (the scan's key).
   */
  of(memory: IndexedMemory): MemoryHeader | null {
    const slot = memory.slot;
    if (this.#memories[slot] === memory) return this.#headers[slot] as MemoryHeader | null;
    const header = (this.#byFile as ReadonlyMap<string, MemoryHeader>).get(memory.file);
    const current =
      header !== undefined && header.mtimeMs === memory.mtimeMs && header.size === memory.size
        ? header
        : null;
    if (slot >= 0) {
      this.#memories[slot] = memory;
      this.#headers[slot] = current;
    }
    return current;
  }
}
