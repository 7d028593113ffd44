import { lengthDivisor, saturate, weightedFrequency } from "./bm25.ts";
import { FIELD_NAMES, fieldFrequency, fieldLength, type IndexedMemory } from "./memory-record.ts";
import type { RankContext, RankingStage } from "./stage.ts";
import type { BridgedConcept } from "./term-bridges.ts";
import type { Candidate } from "./types.ts";

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
    const { bridges, corpus } = context;
    if (bridges.length === 0 || context.tuning.bridgeWeight <= 0) return [];
    const ids: { id: number }[] = [];
    for (const concept of bridges) for (const target of concept.targets) ids.push({ id: target.ids[0] });
    const have = new Set<string>();
    for (const candidate of candidates) have.add(candidate.memory.file);
    const averages = averageLengths(context);
    const found: { candidate: Candidate; score: number }[] = [];
    for (const memory of corpus.candidates(ids)) {
      if (have.has(memory.file)) continue;
      const header = context.headerByFile.get(memory.file);
      // The header scan and the index must describe the same file version, as in BM25F's pass.
      if (!header || header.mtimeMs !== memory.mtimeMs || header.size !== memory.size) continue;
      const score = bridgeScore(context, memory, averages).score;
      if (score > 0) found.push({ candidate: { memory, header, base: 0 }, score });
    }
    // The best few only (a common word at 20,000 memories may be in thousands); equal scores keep
    // posting order, which is the scan's (the same in every process).
    found.sort((a, b) => b.score - a.score);
    return found.slice(0, context.tuning.rerankDepth).map((entry) => entry.candidate);
  },
  score(context, candidates) {
    if (context.bridges.length === 0 || context.tuning.bridgeWeight <= 0) return null;
    const averages = averageLengths(context);
    const scores = new Float64Array(candidates.length);
    const notes: (string | null)[] = new Array(candidates.length).fill(null);
    for (let c = 0; c < candidates.length; c++) {
      const { score, note } = bridgeScore(context, candidates[c].memory, averages);
      scores[c] = score;
      notes[c] = note;
    }
    return { scores, notes };
  },
  explain: (pair) => `related: ${pair}`,
};

function averageLengths(context: RankContext): Float64Array {
  return Float64Array.from(FIELD_NAMES, (field) => context.corpus.averageLength(field));
}

/** The memory's bridge evidence: per concept its best other word's BM25F score, summed, weighted. */
function bridgeScore(
  context: RankContext,
  memory: IndexedMemory,
  averages: Float64Array,
): { score: number; note: string | null } {
  const { tuning } = context;
  let total = 0;
  let strongest = 0;
  let note: string | null = null;
  for (const concept of context.bridges) {
    const best = bestTarget(concept, memory, context, averages);
    if (best.score <= 0) continue;
    total += best.score;
    if (best.score > strongest) {
      strongest = best.score;
      note = `${concept.trigger}≈${best.text}`;
    }
  }
  return { score: tuning.bridgeWeight * total, note };
}

function bestTarget(
  concept: BridgedConcept,
  memory: IndexedMemory,
  context: RankContext,
  averages: Float64Array,
): { score: number; text: string } {
  let best = 0;
  let text = "";
  for (const target of concept.targets) {
    let sum = 0;
    for (let i = 0; i < target.ids.length; i++) {
      const pseudo = pseudoFrequency(memory, target.ids[i], context, averages);
      // A phrase occurs only where all of its words do.
      if (pseudo <= 0) {
        sum = 0;
        break;
      }
      sum += target.idf[i] * saturate(pseudo, context.tuning.k1);
    }
    const score = sum / target.ids.length;
    if (score > best) {
      best = score;
      text = target.text;
    }
  }
  return { score: best, text };
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
