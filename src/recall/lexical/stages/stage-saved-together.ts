import { savedAtMs } from "../../../types.ts";
import { lowerBound, upperBound } from "../index/times.ts";
import type { RankingStage } from "./stage.ts";

/**
 * Cluster smoothing over save time: each candidate gains `neighborWeight` × the current score of
 * the best other candidate saved within `neighborWindowMs`, when that burst is small enough to
 * be one extraction run. Related facts from one conversation are saved together. Context
 * evidence: it may reorder memories, never lift one over the relevance floor.
 */
export const savedTogetherStage: RankingStage = {
  name: "saved together",
  combine: "add",
  evidence: "context",
  score({ tuning, times }, candidates, current) {
    if (tuning.neighborWeight <= 0 || tuning.neighborWindowMs <= 0) return null;
    const window = tuning.neighborWindowMs;
    const burstSize = (time: number) => upperBound(times, time + window) - lowerBound(times, time - window);
    const mtime = (c: number) => savedAtMs(candidates[c].header);
    // Positions by save time (a stable sort: equal times keep the ranking's order).
    const byTime = Array.from(candidates, (_, c) => c).sort((a, b) => mtime(a) - mtime(b));
    const scores = new Float64Array(candidates.length);
    const notes: (string | null)[] = new Array(candidates.length).fill(null);
    for (let i = 0; i < byTime.length; i++) {
      const candidate = byTime[i];
      if (burstSize(mtime(candidate)) > tuning.neighborMaxBurst) continue;
      let bestNeighbor = -1;
      for (const direction of [-1, 1]) {
        for (let j = i + direction; j >= 0 && j < byTime.length; j += direction) {
          const other = byTime[j];
          if (Math.abs(mtime(other) - mtime(candidate)) > window) break;
          if (bestNeighbor < 0 || current[other] > current[bestNeighbor]) bestNeighbor = other;
        }
      }
      if (bestNeighbor >= 0) {
        scores[candidate] = tuning.neighborWeight * current[bestNeighbor];
        notes[candidate] = candidates[bestNeighbor].header.file;
      }
    }
    return { scores, notes };
  },
  explain: (neighbor) => `saved together with ${neighbor}`,
};
