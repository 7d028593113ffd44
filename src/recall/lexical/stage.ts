import type { Corpus } from "./corpus.ts";
import type { RankScratch } from "./scratch.ts";
import type { Token } from "./tokenize.ts";
import type { Candidate, LexicalTuning, QueryTerm, StageScores } from "./types.ts";
import type { WordVectors } from "./word-vectors.ts";

/** What every re-ranking stage may read about the query being ranked. */
export interface RankContext {
  corpus: Corpus;
  scratch: RankScratch;
  tuning: LexicalTuning;
  /** The query's words found in the index (typo matches included, feedback words not). */
  terms: readonly QueryTerm[];
  /** The query's tokens (question words dropped). */
  tokens: readonly Token[];
  vectors: WordVectors | null;
  /** Every mtime of the headers being ranked, ascending. */
  times: Float64Array;
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
  score(context: RankContext, candidates: readonly Candidate[], current: Float64Array): StageScores | null;
  /** The `--explain` fragment for one of the stage's notes. */
  explain?(note: string): string;
}
