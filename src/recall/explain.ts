import type { MemoryHeader } from "../types.ts";
import { MODEL_MANIFEST_LIMIT } from "./budget.ts";
import type { SelectionDetails } from "./selector.ts";

/** Why a candidate was or was not surfaced (`memdir recall --explain`). */
export type CandidateStatus =
  | "picked"
  | "linked"
  | "below-floor"
  | "beyond-k"
  | "already-read"
  | "budget"
  | "cap"
  | "unreadable";

/** One memory the recall considered. */
export interface RecallCandidate {
  file: string;
  path: string;
  /** The selector's score (or the lexical pre-rank score); `null` when nothing scored it. */
  score: number | null;
  status: CandidateStatus;
  reason: string;
}

/** What a recall saw and decided, kept on its result so {@link explainRecall} can judge the rest. */
export interface RecallEvidence {
  /** The picks recall asked for. */
  k: number;
  /** The headers the selector saw (the scan's own array, not a copy). */
  fresh: readonly MemoryHeader[];
  /**
   * The verdicts recall reached itself (already read, picked, over the budget, unreadable, beyond
   * k); every candidate's when the selection had a ranking, since that can mark some "beyond-k".
   */
  judged: RecallCandidate[];
  /** What the selector said beyond its picks. */
  selection: SelectionDetails;
}

/**
 * Every memory a recall considered, with its status and why, picked first, then the near misses
 * (`memdir recall --explain`, `--json`). The candidates recall did not judge itself (one object
 * per memory: 20,000 at 20,000 memories, then sorted) are built here, only when asked.
 *
 * @example
 * const result = await recall({ memoryDir, query: "修复登录测试", selector: createLexicalSelector(), explain: true });
 * for (const candidate of explainRecall(result)) console.log(candidate.status, candidate.file, candidate.reason);
 */
export function explainRecall(result: { evidence: RecallEvidence }): RecallCandidate[] {
  const { evidence } = result;
  const judged = new Set(evidence.judged.map((candidate) => candidate.file));
  const judge = unpickedJudge(evidence);
  const candidates = [...evidence.judged];
  for (const header of evidence.fresh) if (!judged.has(header.file)) candidates.push(judge(header));
  return orderCandidates(candidates);
}

/**
 * The verdict on a fresh header no earlier step judged, from what the selection says: outside a
 * model's manifest → cap; a failed selection, or a model that chose → below the floor; ranked →
 * beyond k; else below the selector's relevance floor.
 */
export function unpickedJudge(evidence: RecallEvidence): (header: MemoryHeader) => RecallCandidate {
  const { selection, k } = evidence;
  const rankScores = new Map(
    (selection.ranking ?? []).map((pick, index) => [pick.file, { pick, rank: index + 1 }]),
  );
  const shown = selection.shownToModel ? new Set(selection.shownToModel) : null;
  const noAnswer = selection.failure !== undefined && selection.fallback === undefined;
  // A selection that names what a model saw was decided by that model, unless it fell back or failed.
  const modelDecided = shown !== null && selection.fallback === undefined && selection.failure === undefined;
  return (header) => {
    const ranked = rankScores.get(header.file);
    const score = ranked?.pick.score ?? null;
    const verdict = (status: CandidateStatus, reason: string, scored = score): RecallCandidate => ({
      file: header.file,
      path: header.path,
      score: scored,
      status,
      reason,
    });
    if (shown && !shown.has(header.file))
      return verdict("cap", `not among the ${MODEL_MANIFEST_LIMIT} headers shown to the model`);
    if (noAnswer) return verdict("below-floor", "no selection: the model gave no usable answer");
    if (modelDecided) return verdict("below-floor", "not chosen by the model");
    if (ranked) return verdict("beyond-k", `rank ${ranked.rank}, below the ${k} picks`);
    return verdict("below-floor", "no match above the selector's relevance floor", null);
  };
}

const STATUS_ORDER: Record<CandidateStatus, number> = {
  picked: 0,
  linked: 1,
  budget: 2,
  unreadable: 3,
  "beyond-k": 4,
  "already-read": 5,
  "below-floor": 6,
  cap: 7,
};

/** Picked first, then the near misses; within a status, higher scores first. */
function orderCandidates(candidates: RecallCandidate[]): RecallCandidate[] {
  return candidates.sort(
    (a, b) =>
      STATUS_ORDER[a.status] - STATUS_ORDER[b.status] ||
      (b.score ?? Number.NEGATIVE_INFINITY) - (a.score ?? Number.NEGATIVE_INFINITY) ||
      a.file.localeCompare(b.file),
  );
}
