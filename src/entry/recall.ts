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
export { LexicalIndexCache } from "../recall/lexical/lexical-index.ts";
export type { FieldName } from "../recall/lexical/memory-record.ts";
export type { RelatedWordTuning } from "../recall/lexical/types.ts";
export { readWordVectors, WordVectors } from "../recall/lexical/word-vectors.ts";
export {
  collectSettledMemories,
  type MemoryPrefetch,
  type PrefetchContext,
  type PrefetchResult,
  startRelevantMemoryPrefetch,
} from "../recall/prefetch.ts";
export {
  type CandidateStatus,
  DEFAULT_RECALL_K,
  type RecallCandidate,
  type Selection,
  type SelectionOptions,
  selectMemories,
} from "../recall/recall.ts";
export { SELECTOR_NAMES, type SelectorName, selectorFromConfig } from "../recall/select-from-config.ts";
export type { SelectorTrace } from "../recall/select-hybrid.ts";
export type { LexicalTuning } from "../recall/select-lexical.ts";
export { type ModelSelectionDetails, modelSelectionDetails } from "../recall/select-model.ts";
export {
  formatSurfacedMemory,
  memoryFreshnessCaveat,
  memoryHeader,
  surfacedMemoryMessage,
  wrapSystemReminder,
} from "../recall/surface.ts";
