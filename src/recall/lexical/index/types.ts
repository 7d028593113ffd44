/**
 * The types the lexical engine's parts share. A leaf: it imports nothing but types, from
 * memory-record.ts (the record layout, itself import-free) and the project's types.
 */
import type { MemoryHeader } from "../../../types.ts";
import type { FieldName, IndexedMemory } from "./memory-record.ts";

/** Knobs of the related-word stage (part of {@link LexicalTuning}). */
export interface RelatedWordTuning {
  /** Weight of the whole-memory score (0 turns it off). */
  relatedWeight: number;
  /** Weight of the best-passage score (0 turns it off). */
  relatedPassageWeight: number;
  /** Similarities at or below this count for nothing (cosine; unrelated words sit around 0.1–0.3). */
  relatedThreshold: number;
  /** How many of the best whole-file candidates are re-scored. */
  relatedDepth: number;
  /** Whole-memory scores only for memories with at least this many lines (short notes: the passage is the note). */
  passageMinLines: number;
}

/**
 * Knobs of the lexical ranker. The defaults (`DEFAULT_LEXICAL_TUNING`, tuning.ts) were measured
 * on the LoCoMo development split (`bench/eval-locomo.ts`; its figures are in docs/benchmarks.md) and
 * are not tuned per data set.
 */
export interface LexicalTuning extends RelatedWordTuning {
  /** BM25 term-frequency saturation. */
  k1: number;
  /** BM25F weight and length normalization (b) per field. */
  fieldWeight: Record<FieldName, number>;
  lengthNormalization: Record<FieldName, number>;
  /** Weight of the best passage score added to the whole-file score (0 turns passages off). */
  passageWeight: number;
  /**
   * Passages only count in files with at least this many body lines: in a short note the best
   * passage is the note itself, and counting it twice over-weights its words (measured: −1 point
   * on LoCoMo observations when passages were scored in 4-line notes).
   */
  passageMinLines: number;
  /** Pseudo-relevance feedback: memories read, words added, their weight (0 turns it off). */
  feedbackDocuments: number;
  feedbackTerms: number;
  feedbackWeight: number;
  /**
   * Feedback only runs when the average memory body is at most this many words: a short note
   * is about one thing, so its other words are the topic's vocabulary; a long transcript's
   * best words are mostly noise (measured on LoCoMo: +0.7 points on observations, ~45-word
   * notes, −0.4 on sessions, ~500-word transcripts, so sessions skip it).
   */
  feedbackMaxAverageLength: number;
  /**
   * Weight of a memory's word that the term-bridge table (term-bridges-table.ts) says means what a
   * query word means, against the weight it would have had if typed (stage-bridges.ts; 0 turns it off).
   */
  bridgeWeight: number;
  /** Weight of a dictionary word one typo away from an unknown query word (0 turns it off). */
  typoWeight: number;
  /** How many of the best whole-file candidates take part in the neighbor and recency stages. */
  rerankDepth: number;
  /** How many of the best whole-file candidates get the (costlier) passage stage. */
  passageDepth: number;
  /**
   * Memories saved within this many ms of each other were usually written by one extraction
   * run about one conversation; a share of the best such neighbor's score is added (cluster
   * score smoothing). 0 turns it off.
   */
  neighborWindowMs: number;
  neighborWeight: number;
  /** Bursts larger than this are not treated as one conversation (e.g. a git checkout). */
  neighborMaxBurst: number;
  /**
   * A memory saved on a day the query names gets ×(1 + dateWeight) (stage-date.ts; 0 turns it off).
   */
  dateWeight: number;
  /**
   * The memory saved right after a strongly matching one that asks something gains this share of
   * its score (stage-answer-after.ts; 0 turns it off), when saved within `answerWindowMs` of it.
   */
  answerWeight: number;
  answerWindowMs: number;
  /** Mild recency prior: the newest memory gets ×(1 + recencyWeight), the oldest ×1. */
  recencyWeight: number;
  /**
   * Relevance floor: minimum summed IDF of the matched query terms. A memory must match at
   * least one query term in any case, so a query that shares no word with any memory gets no
   * picks. 0 by default: an IDF cut also drops the right answer when every memory mentions the
   * query's topic (measured: −0.7 points on LoCoMo sessions at 0.5).
   */
  minMatchedIdf: number;
  /** Relevance floor relative to the best score: weaker candidates are dropped. */
  relativeFloor: number;
}

/** A query word found in the index, with its weights. */
export interface QueryTerm {
  id: number;
  surface: string;
  idf: number;
  passageIdf: number;
  /** Added by pseudo-relevance feedback, not typed by the user. */
  expansion?: boolean;
}

/** One of the best whole-file matches, as the re-ranking stages see it (never changed by them). */
export interface Candidate {
  memory: IndexedMemory;
  header: MemoryHeader;
  /** The BM25F score of the whole file (feedback words included). */
  base: number;
}

/** What one re-ranking stage contributes, per candidate in the order it was given them. */
export interface StageScores {
  /** Added to the score (a stage that `adds`) or multiplied into it (one that `scales`). */
  scores: Float64Array;
  /** What `--explain` names for this stage per candidate (a related pair, a save-burst neighbor), or null. */
  notes?: readonly (string | null)[];
}

/** A pick with the detail `recall --explain` prints. */
export interface LexicalPick {
  /** Path relative to the memory dir (same as `MemoryHeader.file`). */
  file: string;
  /** The final ranking score (rounded to 3 decimals); only comparable within one selection. */
  score: number;
  /** Matched words per field, and what the related-word and saved-together stages found. */
  reason: string;
  /** Matched query words per field, e.g. `{description: ["mock", "数据库"]}`. */
  matched: Partial<Record<FieldName, string[]>>;
}

/** The cache file's content: one record per memory (see memory-record.ts) in two columns by width. */
export interface PersistedIndex {
  terms: string[];
  files: string[];
  mtimeMs: Float64Array;
  sizes: Float64Array;
  narrowRecords: Uint16Array;
  wideRecords: Uint32Array;
  /** Where memory i's record starts in the column `recordWide[i]` names (1: wide). */
  recordStarts: Uint32Array;
  recordWide: Uint8Array;
  documentFrequency: Int32Array;
  passageFrequency: Int32Array;
  /** Memory indexes containing each term, per term id (`postingOffsets` has one more entry). */
  postingOffsets: Uint32Array;
  postingSlots: Uint32Array;
  totalLengths: Record<FieldName, number>;
  passageCount: number;
  passageLengthTotal: number;
}

/**
 * A {@link PersistedIndex} as it is saved: each record column may be the live records themselves,
 * in order, which the cache file holds back to back as that one column.
 */
export type SavedIndex = Omit<PersistedIndex, "narrowRecords" | "wideRecords"> & {
  narrowRecords: Uint16Array | Uint16Array[];
  wideRecords: Uint32Array | Uint32Array[];
};
