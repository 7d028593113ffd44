import type { MemoryHeader } from "../../../types.ts";
import type { Corpus } from "../index/corpus.ts";
import type { RankScratch } from "../index/scratch.ts";
import type { SaveOrder } from "../index/times.ts";
import type { Candidate, LexicalTuning, QueryTerm, StageScores } from "../index/types.ts";
import type { DateSpan } from "../text/query-dates.ts";
import type { Token } from "../text/tokenize.ts";
import type { WordVectors } from "../text/word-vectors.ts";
import type { BridgedConcept } from "./term-bridges.ts";

/** What every re-ranking stage may read about the query being ranked. */
export interface RankContext {
  corpus: Corpus;
  scratch: RankScratch;
  tuning: LexicalTuning;
  /** The query's words found in the index (typo matches included, feedback words not). */
  terms: readonly QueryTerm[];
  /** The query's tokens (question words dropped). */
  tokens: readonly Token[];
  /** The code-common words the query writes inside a path (code-words.ts): weighed by a prior. */
  pathTerms: ReadonlySet<string>;
  /** The concepts of the term-bridge table the query names (term-bridges.ts; empty: none). */
  bridges: readonly BridgedConcept[];
  /** The headers being ranked, by file (a stage that adds candidates needs their headers). */
  headerByFile: ReadonlyMap<string, MemoryHeader>;
  vectors: WordVectors | null;
  /** Every save time of the headers being ranked, ascending. */
  times: Float64Array;
  /** The headers being ranked in save order (`saveOrder.times` is {@link times}). */
  saveOrder: SaveOrder;
  /** The dates the query names, resolved against its time (empty: none). */
  dates: readonly DateSpan[];
}

/**
 * One re-ranking stage of the lexical ranker (rank.ts runs them as a list). A stage never edits
 * the candidates: it returns a score per candidate, which rank.ts adds or multiplies in.
 */
export interface RankingStage {
  readonly name: string;
  /** `add`: the stage's scores are added to each candidate's score; `scale`: multiplied into it. */
  readonly combine: "add" | "scale";
  /**
   * `own`: evidence from the memory itself, which the relevance floor judges; `context`: from
   * its surroundings (save time, neighbors), which may reorder memories but never lifts one that
   * barely matches over the floor. Every `own` stage runs before every `context` one.
   */
  readonly evidence: "own" | "context";
  /**
   * Scores for `candidates` (best whole-file match first), given each one's `current` score; null
   * when the stage does not apply (turned off, or nothing to go on).
   */
  /**
   * Memories the query's words did not find that this stage has evidence for (the answer saved
   * after a matching question): added to the candidates, with no score of their own, before
   * {@link score} runs. Absent: the stage only rescores.
   */
  extend?(context: RankContext, candidates: readonly Candidate[], current: Float64Array): Candidate[];
  score(context: RankContext, candidates: readonly Candidate[], current: Float64Array): StageScores | null;
  /** The `--explain` fragment for one of the stage's notes. */
  explain?(note: string): string;
}
