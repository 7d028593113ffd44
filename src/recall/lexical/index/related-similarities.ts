import type { WordVectors } from "../text/word-vectors.ts";
import type { Corpus } from "./corpus.ts";
import { grow } from "./dictionary.ts";

/**
 * Similarities of index terms to the current query's words, for the related-word stage
 * (stage-related.ts): computed once per term per query (memories share most of their words) into
 * reused buffers, so no per-query garbage grows with the dictionary (~200,000 terms at 20,000
 * memories). One instance lives in each index's ranking scratch; {@link begin} starts a query.
 *
 * Only matches that can count are marked: per term, the query words its similarity (or 1, for a
 * query word itself) is above the stage's threshold for ({@link bits}). A best match at or under
 * the threshold scores nothing in either of the stage's scores, so the stage visits only the
 * marked query words of each token — about one of the query's words instead of all twelve —
 * and a term with none reads as -1 from {@link of}, like a term without a vector
 * (docs/design.md#ranking-cost-per-query).
 */
export class TermSimilarities {
  /** The similarities of the kept terms, one per query word each (a term's offset: {@link of}). */
  values: Float32Array = new Float32Array(4096);
  /** Per term id: the query it was last seen in, and its offset in {@link values} (-1: skipped). */
  stamp: Uint32Array = new Uint32Array(0);
  slot: Int32Array = new Int32Array(0);
  /**
   * Per term id (valid while its offset is): bit q set when its match with query word q (1 for
   * the word itself) is above the threshold, or above 0 when the threshold is negative — every
   * match the stage can count, as a best match starts at 0.
   */
  bits: Uint16Array = new Uint16Array(0);
  /** The current query's stamp. */
  query = 0;
  #used = 0;
  #size = 0;
  #cut = 0;
  /** Term ids and vector rows of the current query words. */
  #ids: Int32Array = new Int32Array(16);
  #rows: Int32Array = new Int32Array(16);
  #width = 0;
  #corpus: Corpus | null = null;
  #vectors: WordVectors | null = null;
  /** Vector row per term id, filled on first use (ids are never reused, terms never change). */
  #rowsById: Int32Array = new Int32Array(0);
  #rowsOf: WordVectors | null = null;

  /** Starts a query: `words` are its words (term id, vector row), `threshold` the stage's. */
  begin(
    corpus: Corpus,
    vectors: WordVectors,
    words: readonly { id: number; row: number }[],
    threshold: number,
  ): void {
    const size = corpus.dictionary.size;
    if (this.stamp.length < size) {
      this.stamp = grow(this.stamp, size);
      this.slot = new Int32Array(this.stamp.length);
      this.bits = new Uint16Array(this.stamp.length);
    }
    if (this.#rowsOf !== vectors) {
      this.#rowsOf = vectors;
      this.#rowsById = new Int32Array(0);
    }
    if (this.#rowsById.length < size) {
      const grown = new Int32Array(Math.max(size, this.#rowsById.length * 2)).fill(UNKNOWN_ROW);
      grown.set(this.#rowsById);
      this.#rowsById = grown;
    }
    this.query++;
    if (this.query === 0xffffffff) {
      this.stamp.fill(0);
      this.query = 1;
    }
    if (words.length > 16) throw new RangeError("at most 16 query words");
    if (this.#ids.length < words.length) {
      this.#ids = new Int32Array(words.length);
      this.#rows = new Int32Array(words.length);
    }
    for (let q = 0; q < words.length; q++) {
      this.#ids[q] = words[q].id;
      this.#rows[q] = words[q].row;
    }
    this.#width = words.length;
    this.#used = 0;
    this.#size = size;
    this.#cut = Math.max(threshold, 0);
    this.#corpus = corpus;
    this.#vectors = vectors;
  }

  /**
   * Offset of `id`'s similarities (one per query word) in {@link values}; -1 when it has no
   * vector or none of its matches (1 for a query word itself) is above the threshold. Calls may
   * grow {@link values}: read it again after one.
   */
  of(id: number): number {
    if (id < 0 || id >= this.#size) return -1;
    if (this.stamp[id] === this.query) return this.slot[id];
    this.stamp[id] = this.query;
    const row = this.rowOfTerm(id);
    const vectors = this.#vectors as WordVectors;
    const width = this.#width;
    let at = -1;
    if (row >= 0) {
      at = this.#used * width;
      if (this.values.length < at + width) {
        const grown = new Float32Array(Math.max(this.values.length * 2, at + width));
        grown.set(this.values);
        this.values = grown;
      }
      const values = this.values;
      vectors.similaritiesTo(this.#rows, width, row, values, at);
      let bits = 0;
      for (let q = 0; q < width; q++) {
        // As the stage reads it: the stored (float32) value, or 1 for the query word itself.
        if ((id === this.#ids[q] ? 1 : values[at + q]) > this.#cut) bits |= 1 << q;
      }
      if (bits !== 0) this.#used++;
      else at = -1;
      this.bits[id] = bits;
    }
    this.slot[id] = at;
    return at;
  }

  /**
   * The vector row of a term id (-1: none). A persisted index may hold ids its dictionary never
   * handed out (they read as terms no memory has): anything outside the row table has no vector.
   */
  rowOfTerm(id: number): number {
    const byId = this.#rowsById;
    if (id < 0 || id >= byId.length) return -1;
    let row = byId[id];
    if (row === UNKNOWN_ROW) {
      const term = (this.#corpus as Corpus).dictionary.term(id);
      row = term === undefined ? -1 : (this.#vectors as WordVectors).rowOf(term);
      byId[id] = row;
    }
    return row;
  }

  /**
   * The similarity of `id` to query word `q` as {@link of} stores it (float32), without storing
   * anything; NaN when the term has no vector. For the rare look-up of a term {@link of} skipped.
   */
  similarity(id: number, q: number): number {
    if (id < 0 || id >= this.#size) return Number.NaN;
    const row = this.rowOfTerm(id);
    if (row < 0) return Number.NaN;
    return Math.fround((this.#vectors as WordVectors).similarity(this.#rows[q], row));
  }
}

const UNKNOWN_ROW = -2;
