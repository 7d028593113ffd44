import { type MemoryHeader, savedAtMs } from "../../types.ts";
import { toPick } from "./explain.ts";
import type { LexicalIndex } from "./index/lexical-index.ts";
import { FIELD_NAMES, type FieldName } from "./index/memory-record.ts";
import { saveOrder } from "./index/times.ts";
import type { Candidate, LexicalPick, LexicalTuning } from "./index/types.ts";
import { joinedWordTokens, queryTerms, queryTokens } from "./query.ts";
import type { RankContext, RankingStage } from "./stages/stage.ts";
import { answerAfterStage } from "./stages/stage-answer-after.ts";
import { addExpansionScores, bestMatches, scoreWholeFiles } from "./stages/stage-bm25f.ts";
import { termBridgeStage } from "./stages/stage-bridges.ts";
import { dateStage } from "./stages/stage-date.ts";
import { feedbackApplies, feedbackTerms } from "./stages/stage-feedback.ts";
import { clearsFloor } from "./stages/stage-floor.ts";
import { passageStage } from "./stages/stage-passage.ts";
import { recencyStage } from "./stages/stage-recency.ts";
import { relatedWordsStage } from "./stages/stage-related.ts";
import { savedTogetherStage } from "./stages/stage-saved-together.ts";
import { bridgedConcepts } from "./stages/term-bridges.ts";
import { pathFragmentTerms, pathOnlyTerms } from "./text/code-words.ts";
import type { DateSpan } from "./text/query-dates.ts";
import type { WordVectors } from "./text/word-vectors.ts";
import { DEFAULT_LEXICAL_TUNING } from "./tuning.ts";

/**
 * The re-ranking stages, in the order they run over the best whole-file candidates. The `own`
 * stages (passage, related words) come first: the relevance floor judges the score they leave;
 * the `context` stages (saved together, recency) then reorder what clears it. The date stage
 * runs before the answer stage, so a question asked on the day the query names passes that
 * evidence on to its answer. The term bridges run first: the memories they add (a Chinese prompt's
 * English answer) are then candidates for every later stage.
 */
export const RANKING_STAGES: readonly RankingStage[] = [
  termBridgeStage,
  passageStage,
  relatedWordsStage,
  dateStage,
  answerAfterStage,
  savedTogetherStage,
  recencyStage,
];

/**
 * Ranks `headers` against `query` using an index already synced with them: BM25F over every
 * memory sharing a word with the query (plus pseudo-relevance feedback words for short notes),
 * then the {@link RANKING_STAGES} over the best `rerankDepth`, then the relevance floor.
 * Pure apart from reading the index and reusing its scratch space.
 */
export function rankLexically(
  index: LexicalIndex,
  query: string,
  headers: readonly MemoryHeader[],
  options: { k: number; dates?: readonly DateSpan[] },
  tuning: LexicalTuning = DEFAULT_LEXICAL_TUNING,
  vectors: WordVectors | null = null,
): LexicalPick[] {
  const corpus = index.corpus;
  const tokens = queryTokens(query);
  const pathOnly = pathOnlyTerms(query);
  const pathTerms = pathFragmentTerms(pathOnly);
  const terms = queryTerms(corpus, tokens, tuning.typoWeight, pathTerms, joinedWordTokens(corpus, query));
  // A query may share no word with any memory and still name a concept they say in other words.
  const bridges = tuning.bridgeWeight > 0 ? bridgedConcepts(corpus, tokens, pathOnly) : [];
  if ((terms.length === 0 && bridges.length === 0) || options.k <= 0) return [];
  const averages = Object.fromEntries(FIELD_NAMES.map((f) => [f, corpus.averageLength(f)])) as Record<
    FieldName,
    number
  >;

  // The synced header list's map is built once per sync, not twice per query (20,000 entries).
  const synced = index.syncedWith(headers);
  const headerByFile = synced ? index.syncedHeaderByFile() : mapByFile(headers);
  // Only the best `depth` whole-file candidates go on (the stages below and feedback's top few).
  const depth = Math.max(tuning.rerankDepth, options.k, tuning.feedbackDocuments);
  const matches = scoreWholeFiles(corpus, index.scratch, headerByFile, terms, tuning, averages);
  let scored = bestMatches(matches, depth);
  if (feedbackApplies(corpus, tuning, scored)) {
    const expansion = feedbackTerms(corpus, scored, terms, tuning);
    if (expansion.length > 0) {
      addExpansionScores(matches, expansion, tuning, averages);
      scored = bestMatches(matches, depth);
    }
  }
  if (scored.length === 0 && bridges.length === 0) return [];
  const top = scored.slice(0, Math.max(tuning.rerankDepth, options.k));
  const order = synced ? index.syncedSaveOrder() : saveOrder(headers);

  const context: RankContext = {
    corpus,
    scratch: index.scratch,
    tuning,
    terms,
    tokens,
    pathTerms,
    bridges,
    headerByFile,
    vectors,
    // Every save time in order, sorted once per sync rather than per query (20,000 numbers).
    times: order.times,
    saveOrder: order,
    dates: options.dates ?? [],
  };
  const staged = runStages(context, top);
  const kept = clearsFloor(staged.ownScores ?? staged.scores, tuning.relativeFloor);
  return bestPicks(staged, kept, terms, options.k);
}

/** The candidates after every stage: the stages may add some, each with its score and notes. */
interface Staged {
  top: Candidate[];
  scores: Float64Array;
  notes: string[][];
  /** The scores before the first `context` stage: the floor's evidence. */
  ownScores: Float64Array | null;
}

/** Runs {@link RANKING_STAGES} in order over the first pass's best candidates. */
function runStages(context: RankContext, firstPass: Candidate[]): Staged {
  let top = firstPass;
  let scores = Float64Array.from(top, (candidate) => candidate.base);
  const notes: string[][] = top.map(() => []);
  let ownScores: Float64Array | null = null;
  for (const stage of RANKING_STAGES) {
    // The floor judges each memory on its own evidence: the context stages may reorder relevant
    // memories, but never lift one that barely matches over the floor (two memories saved
    // together must not both be recalled for a login-test fix only one of them is about).
    if (stage.evidence === "context") ownScores ??= scores.slice();
    const added = stage.extend?.(context, top, scores) ?? [];
    if (added.length > 0) {
      top = [...top, ...added];
      const grown = new Float64Array(top.length);
      grown.set(scores);
      scores = grown;
      for (const _ of added) notes.push([]);
    }
    applyStage(stage, context, top, scores, notes);
  }
  return { top, scores, notes, ownScores };
}

/** The best `k` of the candidates that clear the floor, highest score first (newer on a tie). */
function bestPicks(staged: Staged, kept: Uint8Array, terms: RankContext["terms"], k: number): LexicalPick[] {
  const { top, scores, notes } = staged;
  const ranked = Array.from(top, (_, c) => c);
  ranked.sort((a, b) => scores[b] - scores[a] || savedAtMs(top[b].header) - savedAtMs(top[a].header));
  const picks: LexicalPick[] = [];
  for (const c of ranked) {
    if (picks.length >= k) break;
    if (kept[c]) picks.push(toPick(top[c], scores[c], terms, notes[c]));
  }
  return picks;
}

/** Runs one stage and folds its scores (and `--explain` notes) into the running ones. */
function applyStage(
  stage: RankingStage,
  context: RankContext,
  candidates: readonly Candidate[],
  scores: Float64Array,
  notes: string[][],
): void {
  const result = stage.score(context, candidates, scores);
  if (result === null) return;
  for (let c = 0; c < scores.length; c++) {
    if (stage.combine === "add") scores[c] += result.scores[c];
    else scores[c] *= result.scores[c];
    const note = result.notes?.[c];
    if (note && stage.explain) notes[c].push(stage.explain(note));
  }
}

function mapByFile(headers: readonly MemoryHeader[]): Map<string, MemoryHeader> {
  const byFile = new Map<string, MemoryHeader>();
  for (const header of headers) byFile.set(header.file, header);
  return byFile;
}
