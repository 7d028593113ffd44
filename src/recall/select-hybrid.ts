import { MemdirError } from "../errors.ts";
import { describeFailure } from "../model/side-query-failure.ts";
import { type MemoryHeader, savedAtMs } from "../types.ts";
import type { MemoryPick, Selection, Selector } from "./selector.ts";

/** How many headers the model may see (docs/design.md#hybrid-selector: the manifest holds at most 200). */
export const HYBRID_MODEL_LIMIT = 200;

export interface HybridSelectorOptions {
  /** Ranks every header offline (must honour `k` as "at most k"); its picks are the fallback. */
  candidates: Selector;
  /** Chooses among the headers it is given (the faithful model side query). */
  chooser: Selector;
  /** Headers shown to the chooser (default 200). */
  modelLimit?: number;
}

/**
 * The default selector when a model is configured (docs/design.md#hybrid-selector): the candidate
 * selector (lexical) ranks EVERY header, and the chooser (the model) chooses among the top 200 of
 * that ranking instead of the 200 newest, so an old but relevant memory is not invisible to it.
 * When fewer than 200 headers match lexically, the newest others fill the manifest, so the model
 * can still catch a match the words miss. When the chooser fails (error, timeout, unusable
 * answer), the candidate selector's picks are used and `fallback` says why, for `recall --explain`.
 * The selection always carries the full `ranking` and the files `shownToModel`.
 *
 * Aborting `signal` is never treated as a model failure: the abort propagates.
 *
 * @example
 * const selector = createHybridSelector({ candidates: createLexicalSelector(), chooser: createModelSelector({ client }) });
 * const { picks } = await selector.select({ query: "修复登录测试", headers, k: 5, memoryDir });
 */
export function createHybridSelector(options: HybridSelectorOptions): Selector {
  const modelLimit = options.modelLimit ?? HYBRID_MODEL_LIMIT;
  return {
    name: "hybrid",
    async select(request, signal) {
      // The ranking is the candidate selector's picks with no k limit, so `explain` adds nothing.
      const ranked = await options.candidates.select(
        { ...request, k: request.headers.length, explain: false },
        signal,
      );
      const ranking = ranked.picks;
      const shown = modelManifest(request.headers, ranking, modelLimit);
      const seen = { ranking, shownToModel: shown.map((header) => header.file) };
      const fallBack = (why: string): Selection => ({
        ...seen,
        picks: ranking
          .slice(0, request.k)
          .map((pick) => ({ ...pick, reason: `lexical fallback: ${pick.reason}` })),
        fallback: `model selector failed (${why}); used the lexical picks`,
      });

      let chosen: Selection;
      try {
        chosen = await options.chooser.select({ ...request, headers: shown }, signal);
      } catch (error) {
        if (signal?.aborted) throw error;
        return fallBack(error instanceof Error ? error.message : String(error));
      }
      // A model chooser does not throw for model trouble: it answers no picks and says why.
      if (chosen.failure) {
        if (signal?.aborted) throw abortError(signal);
        return fallBack(describeFailure(chosen.failure));
      }
      return { ...seen, picks: withLexicalRank(chosen.picks.slice(0, request.k), ranking) };
    },
  };
}

/** The chooser's picks, each reason saying where the pick stood in the lexical ranking. */
function withLexicalRank(picks: MemoryPick[], ranking: MemoryPick[]): MemoryPick[] {
  const lexicalRank = new Map(ranking.map((pick, index) => [pick.file, index + 1]));
  return picks.map((pick) => {
    const rank = lexicalRank.get(pick.file);
    const where = rank === undefined ? "no lexical match" : `lexical rank ${rank}`;
    return { ...pick, reason: `${pick.reason || "chosen by the model"} (${where})` };
  });
}

function abortError(signal: AbortSignal): Error {
  return signal.reason instanceof Error
    ? signal.reason
    : new MemdirError("aborted", "hybrid selector: aborted");
}

/** The model's manifest: the lexical ranking first, then the newest unmatched headers, up to `limit`. */
export function modelManifest(
  headers: readonly MemoryHeader[],
  ranking: readonly MemoryPick[],
  limit: number,
): MemoryHeader[] {
  const byFile = new Map(headers.map((header) => [header.file, header]));
  const shown: MemoryHeader[] = [];
  const taken = new Set<string>();
  for (const pick of ranking) {
    if (shown.length >= limit) break;
    const header = byFile.get(pick.file);
    if (!header || taken.has(pick.file)) continue;
    taken.add(pick.file);
    shown.push(header);
  }
  const newestFirst = [...headers].sort((a, b) => savedAtMs(b) - savedAtMs(a));
  for (const header of newestFirst) {
    if (shown.length >= limit) break;
    if (taken.has(header.file)) continue;
    taken.add(header.file);
    shown.push(header);
  }
  return shown;
}
