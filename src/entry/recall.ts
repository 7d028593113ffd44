/**
 * `memdir/recall` — the parts of recall below `recall()`: the selection step, choosing a selector
 * from configuration, the lexical selector's index cache, tuning and word vectors, the prefetch a
 * loop of your own runs each turn, how surfaced memories are formatted, and `memdir eval`.
 *
 * @example
 * import { collectSettledMemories, startRelevantMemoryPrefetch } from "memdir/recall";
 */

export { SESSION_MEMORY_BUDGET_BYTES } from "../recall/budget.ts";
export {
  type EvalOptions,
  type EvalQuery,
  type EvalReport,
  type EvalScores,
  readEvalQueries,
  runEval,
} from "../recall/eval.ts";
export {
  type CandidateStatus,
  explainRecall,
  type RecallCandidate,
  type RecallEvidence,
} from "../recall/explain.ts";
export { LexicalIndexCache, type LexicalIndexCacheOptions } from "../recall/lexical/index/lexical-index.ts";
export type { FieldName } from "../recall/lexical/index/memory-record.ts";
export type { LexicalPick, LexicalTuning, RelatedWordTuning } from "../recall/lexical/index/types.ts";
export { readWordVectors, WordVectors } from "../recall/lexical/text/word-vectors.ts";
export {
  collectSettledMemories,
  type MemoryPrefetch,
  type PrefetchContext,
  type PrefetchResult,
  startRelevantMemoryPrefetch,
} from "../recall/prefetch.ts";
export { type MemorySelection, type SelectionOptions, selectMemories } from "../recall/recall.ts";
export { SELECTOR_NAMES, type SelectorName, selectorFromConfig } from "../recall/select-from-config.ts";
export type { ModelSelection } from "../recall/select-model.ts";
export type { SelectionDetails, SelectionFailure } from "../recall/selector.ts";
export { DEFAULT_RECALL_K } from "../recall/selector.ts";
export {
  formatSurfacedMemory,
  memoryFreshnessCaveat,
  memoryHeader,
  surfacedMemoryMessage,
  wrapSystemReminder,
} from "../recall/surface.ts";
