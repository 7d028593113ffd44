import { z } from "zod";
import { formatManifest } from "../memdir/scan.ts";
import type { ModelClient } from "../model/client.ts";
import { type SideQueryFailure, sideQuery } from "../model/side-query.ts";
import { selectMemoriesSystemPrompt, selectMemoriesUserPrompt } from "../prompts/select-memories.ts";
import type { Pick, Selector } from "./selector.ts";

/** At most this many headers go into the manifest (docs/design.md#model-selector). */
export const MODEL_MANIFEST_LIMIT = 200;
/** The reply budget of the selection side query (docs/design.md#model-selector). */
export const MODEL_SELECTOR_MAX_TOKENS = 256;

const selectionSchema = z.object({ selected_memories: z.array(z.string()) });

/** What a model selection learned beyond its picks, for `recall --explain`. */
export interface ModelSelectionDetails {
  /** Why the model gave no usable answer (the picks are then empty), or null. */
  failure: SideQueryFailure | null;
  /** Names the model returned that are not in the manifest (dropped). */
  unknownNames: string[];
}

const DETAILS = Symbol("memdir.modelSelectionDetails");
type PicksWithDetails = Pick[] & { [DETAILS]?: ModelSelectionDetails };

/**
 * The details attached to picks returned by a model selector, or null for picks from elsewhere
 * (or after the array was copied). A hybrid selector checks `failure` to fall back to lexical picks
 * and say so in `--explain`.
 *
 * @example
 * const picks = await modelSelector(query, headers, { k: 5, memoryDir });
 * const failure = modelSelectionDetails(picks)?.failure;
 * if (failure) explain(`model selection failed (${failure.kind}): ${failure.message}`);
 */
export function modelSelectionDetails(picks: readonly Pick[]): ModelSelectionDetails | null {
  return (picks as PicksWithDetails)[DETAILS] ?? null;
}

export interface ModelSelectorOptions {
  client: ModelClient;
  /** Model id for the side query; the client's default when absent. */
  model?: string;
  /** Default 15 s. */
  timeoutMs?: number;
  /** Called when the model gives no usable answer (logging); the selection is then empty. */
  onFailure?: (failure: SideQueryFailure) => void;
}

/**
 * The faithful selector (docs/design.md#model-selector): one side query with the query and a manifest of at most 200
 * headers (in the order given: newest first, or pre-ranked by the hybrid selector), JSON output
 * `{selected_memories: string[]}`, `max_tokens` 256. Names not in the manifest are dropped. It never
 * throws for model trouble: any failure gives an empty selection, with the reason readable through
 * {@link modelSelectionDetails} (the symbol-keyed details stay out of `JSON.stringify`).
 *
 * @example
 * const selector = createModelSelector({ client: requireModel(config.model, { purpose: "selector" }) });
 * const picks = await selector("why do login tests fail?", headers, { k: 5, memoryDir });
 */
export function createModelSelector(options: ModelSelectorOptions): Selector {
  return async (query, headers, selectorOptions) => {
    const candidates = headers.slice(0, MODEL_MANIFEST_LIMIT);
    const limit = Math.max(0, selectorOptions.k);
    if (candidates.length === 0 || limit === 0) return withDetails([], { failure: null, unknownNames: [] });
    const result = await sideQuery(options.client, {
      system: selectMemoriesSystemPrompt(limit),
      user: selectMemoriesUserPrompt({
        query,
        manifest: formatManifest(candidates),
        recentTools: selectorOptions.recentTools,
      }),
      schema: selectionSchema,
      name: "memory_selection",
      maxTokens: MODEL_SELECTOR_MAX_TOKENS,
      model: options.model,
      signal: selectorOptions.signal,
      timeoutMs: options.timeoutMs,
    });
    if (!result.ok) {
      options.onFailure?.(result.failure);
      return withDetails([], { failure: result.failure, unknownNames: [] });
    }
    const known = new Set(candidates.map((header) => header.file));
    const chosen: string[] = [];
    const unknownNames: string[] = [];
    for (const raw of result.data.selected_memories) {
      const name = raw.trim().replace(/^\.\//, "");
      if (!known.has(name)) unknownNames.push(raw);
      else if (!chosen.includes(name)) chosen.push(name);
    }
    const kept = chosen.slice(0, limit);
    const picks = kept.map((file, index) => ({
      file,
      // The model gives an order, not a score: rank 1 scores 1, the rest step down evenly.
      score: (kept.length - index) / kept.length,
      reason: `picked by ${options.client.name} (rank ${index + 1})`,
    }));
    return withDetails(picks, { failure: null, unknownNames });
  };
}

function withDetails(picks: Pick[], details: ModelSelectionDetails): Pick[] {
  (picks as PicksWithDetails)[DETAILS] = details;
  return picks;
}
