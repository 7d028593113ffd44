import { MemdirError } from "../errors.ts";
import { LexicalIndexCache } from "./lexical/lexical-index.ts";
import { rankLexically } from "./lexical/rank.ts";
import { DEFAULT_LEXICAL_TUNING } from "./lexical/tuning.ts";
import type { LexicalTuning } from "./lexical/types.ts";
import type { WordVectors } from "./lexical/word-vectors.ts";
import type { Selector } from "./selector.ts";

/**
 * The lexical selector: the thin adapter between the selector contract and the lexical engine
 * in `lexical/` (index, stages, ranking; see lexical/rank.ts).
 */

export { LexicalIndexCache } from "./lexical/lexical-index.ts";
export { rankLexically } from "./lexical/rank.ts";
export { DEFAULT_LEXICAL_TUNING } from "./lexical/tuning.ts";
export type { LexicalPick, LexicalTuning, RelatedWordTuning } from "./lexical/types.ts";
export type { WordVectors } from "./lexical/word-vectors.ts";

/** Options of {@link createLexicalSelector}. */
export interface LexicalSelectorOptions {
  /**
   * Index cache, to share indexes (and the word vectors) between selectors or isolate them.
   * Default: a cache of the selector's own that persists each index in its memory dir.
   */
  cache?: LexicalIndexCache;
  /** Override some ranking knobs (benchmarks and experiments). */
  tuning?: Partial<LexicalTuning>;
  /**
   * Word vectors of the related-word stage (default: the bundled GloVe table, read on first
   * use and kept with the cache); `null` ranks by shared words alone.
   */
  wordVectors?: WordVectors | null;
}

/**
 * The offline selector (issue 4): BM25F over file name, description, type and body, plus the
 * best two-line passage, a share of the score of memories saved in the same burst, a mild
 * recency prior and a relevance floor. Ranks every header it is given (no 200-newest cap).
 *
 * @example
 * const select = createLexicalSelector();
 * const headers = await scanHeaders(memoryDir, { limit: Number.POSITIVE_INFINITY });
 * const picks = await select("why do login tests hit a real database?", headers, { k: 5, memoryDir });
 * // [{ file: "feedback-real-database.md", score: 7.1, reason: "matched description: login, database; …" }]
 */
export function createLexicalSelector(options: LexicalSelectorOptions = {}): Selector {
  const cache = options.cache ?? new LexicalIndexCache({ persist: true });
  const tuning = { ...DEFAULT_LEXICAL_TUNING, ...options.tuning };
  return async (query, headers, selectorOptions) => {
    const index = cache.forDirectory(selectorOptions.memoryDir);
    await index.sync(headers, selectorOptions.signal);
    if (selectorOptions.signal?.aborted) {
      throw new MemdirError("aborted", "recall: lexical selection aborted", {
        cause: selectorOptions.signal.reason,
      });
    }
    const vectors = options.wordVectors === undefined ? cache.bundledWordVectors() : options.wordVectors;
    return rankLexically(index, query, headers, selectorOptions, tuning, vectors);
  };
}
