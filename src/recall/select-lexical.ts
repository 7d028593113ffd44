import { throwIfAborted } from "../errors.ts";
import { yieldToEventLoop } from "../event-loop.ts";
import type { Memdir } from "../memdir/instance.ts";
import { coreOf } from "../memdir/scan/instance-core.ts";
import { LexicalIndexCache } from "./lexical/index/lexical-index.ts";
import type { LexicalTuning } from "./lexical/index/types.ts";
import { rankLexically } from "./lexical/rank.ts";
import { queryDates } from "./lexical/text/query-dates.ts";
import type { WordVectors } from "./lexical/text/word-vectors.ts";
import { DEFAULT_LEXICAL_TUNING } from "./lexical/tuning.ts";
import { picksOfAskedType } from "./lexical/type-asked.ts";
import type { Selector } from "./selector.ts";

/**
 * The lexical selector: the thin adapter between the selector contract and the lexical engine
 * in `lexical/` (index, stages, ranking; see lexical/rank.ts).
 */

/** Options of {@link createLexicalSelector}. */
export interface LexicalSelectorOptions {
  /**
   * Index cache, to share indexes between selectors or isolate them (the bundled word vectors
   * are read once per process whatever the cache).
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
 * The offline selector (docs/design.md#selectors): BM25F over file name, description and body, plus the
 * best two-line passage, a share of the score of memories saved in the same burst, a mild
 * recency prior and a relevance floor. Ranks every header it is given (no 200-newest cap).
 *
 * @example
 * const selector = createLexicalSelector();
 * const headers = await scanHeaders(memoryDir, { limit: Number.POSITIVE_INFINITY });
 * const { picks } = await selector.select({ query: "why do login tests hit a real database?", headers, k: 5, memoryDir });
 * // [{ file: "feedback-real-database.md", score: 7.1, reason: "matched description: login, database; …" }]
 */
export function createLexicalSelector(options: LexicalSelectorOptions = {}): Selector {
  let ownCache: LexicalIndexCache | undefined;
  const ownLexicalCache = () => {
    ownCache ??= new LexicalIndexCache({ persist: true });
    return ownCache;
  };
  const tuning = { ...DEFAULT_LEXICAL_TUNING, ...options.tuning };
  const select: Selector["select"] = async ({ query, headers, memdir, ...request }, signal) => {
    // The cache given, else the instance's (shared by every selector of the process and saved
    // with its other caches), else one of this selector's own.
    const cache = options.cache ?? (memdir ? lexicalCacheOf(memdir) : ownLexicalCache());
    const index = cache.forDirectory(request.memoryDir);
    const alreadySynced = index.syncedWith(headers);
    await index.sync(headers, signal, memdir?.progress);
    // A first ranking of a freshly loaded index runs in a turn of its own (~120 ms at 20,000
    // memories in code V8 has not optimized yet; docs/design.md#the-memory-helper).
    if (!alreadySynced) await yieldToEventLoop();
    throwIfAborted(signal, "recall: lexical selection");
    const vectors = options.wordVectors === undefined ? cache.bundledWordVectors() : options.wordVectors;
    // Parsed here, where loading the date parsers can wait: ranking itself stays synchronous.
    const dates = await queryDates(query, request.now ?? Date.now());
    const ranked = rankLexically(index, query, headers, { k: request.k, dates }, tuning, vectors);
    // Nothing matched: a prompt that names one memory type asks for that kind.
    const picks = ranked.length > 0 ? ranked : picksOfAskedType(query, headers, request.k);
    if (!request.explain) return { picks };
    // Deterministic, and cheap when warm: every match above the floor ranks the same way, so
    // positions after k are exactly the "beyond k" candidates of `recall --explain`.
    return {
      picks,
      ranking:
        ranked.length > 0
          ? rankLexically(index, query, headers, { k: headers.length, dates }, tuning, vectors)
          : picks,
    };
  };
  return { name: "lexical", select };
}

// The key of the lexical index in a Memdir's extensions (a constant: no state of its own).
const LEXICAL_INDEX_SLOT = Symbol("memdir.lexical-index");

/**
 * Whether `memdir` (a long-lived instance: the memory helper's) already holds a lexical index of
 * `memoryDir`, so a warm-up or a load ahead would only redo it.
 */
export function holdsLexicalIndex(memdir: Memdir | undefined, memoryDir: string): boolean {
  return memdir !== undefined && lexicalCacheOf(memdir).forDirectory(memoryDir).size > 0;
}

/** The lexical index cache of `memdir`, made on first use and saved through its persisted caches. */
export function lexicalCacheOf(memdir: Memdir): LexicalIndexCache {
  let cache = memdir.extensions.get(LEXICAL_INDEX_SLOT) as LexicalIndexCache | undefined;
  if (cache === undefined) {
    cache = new LexicalIndexCache({ persisted: coreOf(memdir).persisted });
    memdir.extensions.set(LEXICAL_INDEX_SLOT, cache);
  }
  return cache;
}
