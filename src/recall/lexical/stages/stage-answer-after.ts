import { savedAtMs } from "../../../types.ts";
import { upperBound } from "../index/times.ts";
import type { Candidate } from "../index/types.ts";
import type { RankContext, RankingStage } from "./stage.ts";

/**
 * The answer after the question (docs/design.md#the-answer-after-the-question). In a conversation saved
 * one exchange per memory, the exchange that asks ("我想请教你送朋友什么礼物", "what should I
 * read next?") shares the query's words; the next one, which holds the answer, often shares
 * none. So a strongly matching memory that asks something passes `answerWeight` × its score to
 * the one memory saved next, when that was saved within `answerWindowMs` (the same
 * conversation) and alone at its time (not one of a burst an extraction run wrote). Own
 * evidence: the answer may be recalled on its question's words, below its question. A memory
 * that asks nothing, a strong match's later neighbor after a pause, or one of a burst gains nothing.
 */
export const answerAfterStage: RankingStage = {
  name: "answer after the question",
  combine: "add",
  evidence: "own",
  extend(context, candidates, current) {
    const have = new Set(candidates.map((candidate) => candidate.header.file));
    const added: Candidate[] = [];
    for (const { answer } of answerPairs(context, candidates, current)) {
      if (have.has(answer.header.file)) continue;
      have.add(answer.header.file);
      added.push(answer);
    }
    return added;
  },
  score(context, candidates, current) {
    const pairs = answerPairs(context, candidates, current);
    if (pairs.length === 0) return null;
    const position = new Map(candidates.map((candidate, c) => [candidate.header.file, c]));
    const scores = new Float64Array(candidates.length);
    const notes: (string | null)[] = new Array(candidates.length).fill(null);
    for (const { question, answer } of pairs) {
      const c = position.get(answer.header.file);
      if (c === undefined) continue;
      const lift = context.tuning.answerWeight * current[question];
      if (lift > scores[c]) {
        scores[c] = lift;
        notes[c] = candidates[question].header.file;
      }
    }
    return { scores, notes };
  },
  explain: (question) => `answer after ${question}`,
};

/**
 * Asks something: a question mark; a description that opens with an English auxiliary ("Can
 * you…") or with a question word and an auxiliary right after it, or after one word ("What should
 * I…", "Which book should…", "What's…"); a Chinese question particle or request (吗, 呢, 请教,
 * 请问, 什么, 怎么, 哪); a Japanese question ending or request (ですか, 教えて). English question
 * words elsewhere in a sentence do not count: statements use them ("Melanie explained how she
 * paints"; measured on LoCoMo observations, counting them cost 0.6 points on the tuning half), nor
 * does a question word without the auxiliary: a coding memory's title ("How to run migrations",
 * "Where production errors go", "What we decided about auth") asks nothing, and read as a question
 * it handed its score to whatever memory was saved next, when several were saved in one sitting
 * (test/recall/answer-after.test.ts).
 * Read from the name and description, which the scan already has (a memory of one exchange is
 * described by what was said).
 */
const ASKS =
  /[?？]|^\s*(?:can|could|would|should|do|does|did|is|are|any)\b|^\s*(?:what|which|how|why|where|when|who|whom|whose)(?:'s|'re|\s+(?:\w+\s+)?(?:do|does|did|is|are|was|were|should|shall|can|could|would|will|may|might|must|have|has|had)\b)|吗|嗎|呢|请教|請教|请问|請問|什么|甚麼|什麼|怎么|怎麼|怎样|如何|哪|ですか|ますか|でしょうか|教えて/i;

/** How many of the best candidates may pass evidence on (a recall shows about five). */
const QUESTION_SOURCES = 5;

/** A strong match that asks, and the memory saved right after it. */
function answerPairs(
  { tuning, corpus, saveOrder }: RankContext,
  candidates: readonly Candidate[],
  current: Float64Array,
): { question: number; answer: Candidate }[] {
  if (tuning.answerWeight <= 0 || tuning.answerWindowMs <= 0 || candidates.length === 0) return [];
  let best = 0;
  for (let c = 0; c < candidates.length; c++) if (current[c] > best) best = current[c];
  // Strongly matching: at least half the best score, among the best few.
  const strong = Array.from(candidates, (_, c) => c)
    .filter((c) => current[c] >= best / 2)
    .sort((a, b) => current[b] - current[a])
    .slice(0, QUESTION_SOURCES);
  const { times, headers } = saveOrder;
  const pairs: { question: number; answer: Candidate }[] = [];
  for (const question of strong) {
    const header = candidates[question].header;
    if (!ASKS.test(header.description ?? "")) continue;
    const saved = savedAtMs(header);
    const next = upperBound(times, saved);
    if (next >= times.length || times[next] - saved > tuning.answerWindowMs) continue;
    // Alone at its time: two memories saved in the same instant are a burst, not a reply.
    if (next + 1 < times.length && times[next + 1] === times[next]) continue;
    const memory = corpus.get(headers[next].file);
    if (memory === undefined) continue;
    pairs.push({ question, answer: { memory, header: headers[next], base: 0 } });
  }
  return pairs;
}
