import type { MemoryHeader } from "../../../types.ts";
import type { BridgeScratch } from "../index/bridge-scratch.ts";
import { FIELD_NAMES, fieldFrequency, fieldLength, type IndexedMemory } from "../index/memory-record.ts";
import { lengthDivisor, saturate, weightedFrequency } from "./bm25.ts";
import type { RankContext, RankingStage } from "./stage.ts";
import type { BridgedConcept } from "./term-bridges.ts";

/**
 * The term-bridge stage (docs/design.md#term-bridges): a memory that says the concept a query
 * names in another of the table's words — another language ("超时" → `timeout`), a tool of the
 * kind ("install dependencies" → `pnpm`), the usual other word ("the build" → `pipeline`) — gains
 * what that word would have scored had the query said it, at `bridgeWeight`. Per concept only its
 * best word counts (one concept, one piece of evidence); a phrase counts the mean of its words.
 *
 * It may add candidates ({@link RankingStage.extend}): a Chinese prompt over English memories
 * shares no word with them, and the memory that answers it would otherwise never be ranked.
 * `--explain` names the strongest pair: `related: install≈pnpm`.
 */
export const termBridgeStage: RankingStage = {
  name: "term bridges",
  combine: "add",
  evidence: "own",
  extend(context, candidates) {
    if (context.bridges.length === 0 || context.tuning.bridgeWeight <= 0) return [];
    const scratch = scoreBridges(context);
    for (const candidate of candidates) {
      const slot = candidate.memory.slot;
      if (slot >= 0 && slot < scratch.candidateStamp.length) scratch.candidateStamp[slot] = scratch.query;
    }
    const extra: number[] = [];
    for (const slot of scratch.touched) {
      if (scratch.candidateStamp[slot] === scratch.query) continue;
      const memory = scratch.memory[slot] as IndexedMemory;
      const header = context.headerByFile.get(memory.file);
      // The header scan and the index must describe the same file version, as in BM25F's pass.
      if (!header || header.mtimeMs !== memory.mtimeMs || header.size !== memory.size) continue;
      extra.push(slot);
    }
    // The best few only (a common term at 20,000 memories may be in thousands); equal scores in
    // slot order, which is the index's (the same in every process).
    extra.sort((a, b) => scratch.total[b] - scratch.total[a] || a - b);
    if (extra.length > context.tuning.rerankDepth) extra.length = context.tuning.rerankDepth;
    return extra.map((slot) => {
      const memory = scratch.memory[slot] as IndexedMemory;
      return { memory, header: context.headerByFile.get(memory.file) as MemoryHeader, base: 0 };
    });
  },
  score(context, candidates) {
    if (context.bridges.length === 0 || context.tuning.bridgeWeight <= 0) return null;
    const scratch = scoreBridges(context);
    const scores = new Float64Array(candidates.length);
    const notes: (string | null)[] = new Array(candidates.length).fill(null);
    for (let c = 0; c < candidates.length; c++) {
      const slot = candidates[c].memory.slot;
      if (slot < 0 || slot >= scratch.stamp.length || scratch.stamp[slot] !== scratch.query) continue;
      if (scratch.memory[slot] !== candidates[c].memory) continue;
      scores[c] = scratch.total[slot];
      const concept = context.bridges[scratch.strongestConcept[slot]];
      notes[c] = `${concept.trigger}≈${concept.targets[scratch.strongestTarget[slot]].text}`;
    }
    return { scores, notes };
  },
  explain: (pair) => `related: ${pair}`,
};

/**
 * Every memory's bridge evidence for the query of `context`, once per query (the stage's extend
 * and score share it): per concept, each term's postings are walked and a memory keeps its best
 * term's score; the concepts' bests are summed, times `bridgeWeight`. The work is the postings of
 * the concept's terms, not every memory times every term (measured: a query naming a common
 * concept at 20,000 memories).
 */
function scoreBridges(context: RankContext): BridgeScratch {
  const scratch = context.scratch.bridges;
  if (scratch.owner === context) return scratch;
  scratch.begin(context);
  const { corpus, tuning } = context;
  const averages = Float64Array.from(FIELD_NAMES, (field) => corpus.averageLength(field));
  for (let ci = 0; ci < context.bridges.length; ci++) {
    const targets = context.bridges[ci].targets;
    scratch.conceptRun++;
    scratch.conceptTouched.length = 0;
    for (let ti = 0; ti < targets.length; ti++) {
      const target = targets[ti];
      // A phrase occurs only where its first word does: that word's postings hold every match.
      corpus.forEachMemory(target.ids[0], (memory) => {
        const score = targetScore(memory, target, context, averages);
        if (score <= 0) return;
        const slot = memory.slot;
        scratch.fit(slot);
        if (scratch.conceptStamp[slot] !== scratch.conceptRun) {
          scratch.conceptStamp[slot] = scratch.conceptRun;
          scratch.conceptBest[slot] = score;
          scratch.conceptTarget[slot] = ti;
          scratch.conceptTouched.push(slot);
          scratch.memory[slot] = memory;
        } else if (score > scratch.conceptBest[slot]) {
          scratch.conceptBest[slot] = score;
          scratch.conceptTarget[slot] = ti;
        }
      });
    }
    for (const slot of scratch.conceptTouched) {
      const evidence = tuning.bridgeWeight * scratch.conceptBest[slot];
      if (scratch.stamp[slot] !== scratch.query) {
        scratch.stamp[slot] = scratch.query;
        scratch.total[slot] = 0;
        scratch.strongest[slot] = 0;
        scratch.touched.push(slot);
      }
      scratch.total[slot] += evidence;
      if (evidence > scratch.strongest[slot]) {
        scratch.strongest[slot] = evidence;
        scratch.strongestConcept[slot] = ci;
        scratch.strongestTarget[slot] = scratch.conceptTarget[slot];
      }
    }
  }
  return scratch;
}

/** One term's evidence in a memory: its BM25F score as a query word (a phrase: the mean of its words', 0 unless all occur). */
function targetScore(
  memory: IndexedMemory,
  target: BridgedConcept["targets"][number],
  context: RankContext,
  averages: Float64Array,
): number {
  let sum = 0;
  for (let i = 0; i < target.ids.length; i++) {
    const pseudo = pseudoFrequency(memory, target.ids[i], context, averages);
    if (pseudo <= 0) return 0;
    sum += target.idf[i] * saturate(pseudo, context.tuning.k1);
  }
  return sum / target.ids.length;
}

/** BM25F's weighted, length-normalized frequency of a term over the memory's fields. */
function pseudoFrequency(
  memory: IndexedMemory,
  termId: number,
  context: RankContext,
  averages: Float64Array,
): number {
  const { fieldWeight, lengthNormalization } = context.tuning;
  let pseudo = 0;
  for (let f = 0; f < FIELD_NAMES.length; f++) {
    const field = FIELD_NAMES[f];
    const frequency = fieldFrequency(memory, field, termId);
    if (frequency === 0) continue;
    const divisor = lengthDivisor(fieldLength(memory, field), averages[f], lengthNormalization[field]);
    pseudo += weightedFrequency(frequency, fieldWeight[field], divisor);
  }
  return pseudo;
}
