import type { WordVectors } from "./word-vectors.ts";

/**
 * Buffers that ranking one query reuses instead of allocating: at 20,000 memories, fresh arrays
 * per query were megabytes of garbage, and garbage that survives into the old generation is
 * peak RSS. One set belongs to each {@link LexicalIndex}; ranking is synchronous, so two queries
 * never use it at once.
 */
export class RankScratch {
  /** Whole-file scores of the current query's matches (BM25F stage). */
  #wholeFile: Float64Array = new Float64Array(1024);
  readonly related = new RelatedScratch();

  /** The whole-file score buffer, with room for at least `count` matches (contents kept only while it fits). */
  wholeFileScores(count: number): Float64Array {
    if (this.#wholeFile.length < count)
      this.#wholeFile = new Float64Array(Math.max(count, this.#wholeFile.length * 2));
    return this.#wholeFile;
  }
}

/** Scratch of the related-word stage (stage-related.ts). */
export class RelatedScratch {
  // One entry per query word (the stage takes at most 12).
  bestSimilarity: Float64Array = new Float64Array(16);
  bestRow: Int32Array = new Int32Array(16);
  description: Float64Array = new Float64Array(16);
  queryIds: Int32Array = new Int32Array(16);
  /** Best match per line and query word of the memory being scored. */
  lines: Float32Array = new Float32Array(1024);
  /** The best related passage of the memory being scored. */
  readonly passage = { score: 0, strongestRelated: -1 };
  /** Similarities of index terms to the current query's words (see similaritiesFor). */
  readonly memo: { stamp: Uint32Array; slot: Int32Array; values: Float32Array; used: number; query: number } =
    {
      stamp: new Uint32Array(0),
      slot: new Int32Array(0),
      values: new Float32Array(4096),
      used: 0,
      query: 0,
    };
  /** Vector row per term id, filled on first use (ids are never reused, terms never change). */
  rows: { vectors: WordVectors; byId: Int32Array } | null = null;

  /** Sizes the per-query-word buffers for `width` words. */
  fit(width: number): void {
    if (this.bestSimilarity.length >= width) return;
    this.bestSimilarity = new Float64Array(width);
    this.bestRow = new Int32Array(width);
    this.description = new Float64Array(width);
    this.queryIds = new Int32Array(width);
  }
}
