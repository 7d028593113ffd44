import { MemdirError } from "../errors.ts";
import type { MemoryHeader } from "../types.ts";
import { modelSelectionDetails } from "./select-model.ts";
import type { Pick, Selector, SelectorOptions } from "./selector.ts";

/** How many headers the model may see (docs/design.md#hybrid-selector: the manifest holds at most 200). */
export const HYBRID_MODEL_LIMIT = 200;

/**
 * What a selector can tell `recall --explain` beyond its picks. Any selector may fill it; callers
 * pass a fresh object per call in `options.trace` and selectors that do not know it ignore it.
 */
export interface SelectorTrace {
  /** Why the picks came from a fallback (hybrid: the model failed, lexical picks used). */
  fallback?: string;
  /** The full ranking above the relevance floor, best first (not cut at k). */
  ranking?: Pick[];
  /** Files the model saw in its manifest; the rest were capped out. */
  shownToModel?: string[];
  /** The model gave no usable answer and there was no fallback (plain model selector). */
  modelFailure?: string;
}

/** Selector options with the optional trace (structurally a `SelectorOptions`). */
export interface TracedSelectorOptions extends SelectorOptions {
  trace?: SelectorTrace;
}

export interface HybridSelectorOptions {
  /** Ranks every header offline (must honour `k` as "at most k"). */
  lexical: Selector;
  /** Chooses among the headers it is given (the faithful side query). */
  model: Selector;
  /** Headers shown to the model (default 200). */
  modelLimit?: number;
}

/**
 * The default selector when a model is configured (issue 4, docs/design.md#hybrid-selector): the lexical
 * selector ranks EVERY header, and the model chooses among the top 200 of that ranking instead
 * of the 200 newest, so an old but relevant memory is not invisible to it. When fewer than 200
 * headers match lexically, the newest others fill the manifest, so the model can still catch a
 * match the words miss. When the model fails (error, timeout, unusable answer), the lexical picks
 * are used and `trace.fallback` says why, for `recall --explain`.
 *
 * Aborting `options.signal` is never treated as a model failure: the abort propagates.
 *
 * @example
 * const selector = createHybridSelector({ lexical: createLexicalSelector(), model: createModelSelector({ client }) });
 * const picks = await selector("修复登录测试", headers, { k: 5, memoryDir });
 */
export function createHybridSelector(options: HybridSelectorOptions): Selector {
  const modelLimit = options.modelLimit ?? HYBRID_MODEL_LIMIT;
  return async (query, headers, selectorOptions) => {
    const trace = (selectorOptions as TracedSelectorOptions).trace;
    const { trace: _ignored, ...plainOptions } = selectorOptions as TracedSelectorOptions;
    const ranking = await options.lexical(query, headers, { ...plainOptions, k: headers.length });
    const shown = modelManifest(headers, ranking, modelLimit);
    if (trace) {
      trace.ranking = ranking;
      trace.shownToModel = shown.map((header) => header.file);
    }
    const lexicalPicks = ranking.slice(0, selectorOptions.k);
    const fallBack = (why: string): Pick[] => {
      if (trace) trace.fallback = `model selector failed (${why}); used the lexical picks`;
      return lexicalPicks.map((pick) => ({ ...pick, reason: `lexical fallback: ${pick.reason}` }));
    };

    let modelPicks: Pick[];
    try {
      modelPicks = await options.model(query, shown, plainOptions);
    } catch (error) {
      if (selectorOptions.signal?.aborted) throw error;
      return fallBack(error instanceof Error ? error.message : String(error));
    }
    // The model selector never throws for model trouble: it answers [] and says why on the side.
    const failure = modelSelectionDetails(modelPicks)?.failure;
    if (failure) {
      if (selectorOptions.signal?.aborted) throw abortError(selectorOptions.signal);
      return fallBack(`${failure.kind}: ${failure.message}`);
    }

    const lexicalRank = new Map(ranking.map((pick, index) => [pick.file, index + 1]));
    return modelPicks.slice(0, selectorOptions.k).map((pick) => {
      const rank = lexicalRank.get(pick.file);
      const where = rank === undefined ? "no lexical match" : `lexical rank ${rank}`;
      return { ...pick, reason: `${pick.reason || "chosen by the model"} (${where})` };
    });
  };
}

function abortError(signal: AbortSignal): Error {
  return signal.reason instanceof Error
    ? signal.reason
    : new MemdirError("aborted", "hybrid selector: aborted");
}

/** The model's manifest: the lexical ranking first, then the newest unmatched headers, up to `limit`. */
export function modelManifest(headers: MemoryHeader[], ranking: Pick[], limit: number): MemoryHeader[] {
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
  const newestFirst = [...headers].sort((a, b) => b.mtimeMs - a.mtimeMs);
  for (const header of newestFirst) {
    if (shown.length >= limit) break;
    if (taken.has(header.file)) continue;
    taken.add(header.file);
    shown.push(header);
  }
  return shown;
}
