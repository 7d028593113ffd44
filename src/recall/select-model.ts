import { formatManifest } from "../memdir/scan/scan.ts";
import type { ModelClient } from "../model/client.ts";
import type { SideQueryFailure } from "../model/side-query-failure.ts";
import { selectMemoriesSystemPrompt, selectMemoriesUserPrompt } from "../prompts/select-memories.ts";
import { MODEL_MANIFEST_LIMIT } from "./budget.ts";
import type { Selection, Selector } from "./selector.ts";

/** The reply budget of the selection side query (docs/design.md#model-selector). */
export const MODEL_SELECTOR_MAX_TOKENS = 256;

/**
 * The reply's schema, and the side query that asks for it, loaded on the first selection rather
 * than with this file: `import("memdir")` and a lexical recall then load no zod (docs/design.md#lazy-entry).
 */
async function selectionQuery() {
  const [{ z }, { sideQuery }] = await Promise.all([import("zod"), import("../model/side-query.ts")]);
  return { sideQuery, schema: z.object({ selected_memories: z.array(z.string()) }) };
}

/** A model selection: the picks, what the model saw, and the names it invented (dropped). */
export interface ModelSelection extends Selection {
  /** The manifest: the first 200 headers the selector was given. */
  shownToModel: string[];
  /** Names the model returned that are not in the manifest (dropped). */
  unknownNames: string[];
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
 * throws for model trouble: any failure gives an empty selection whose `failure` says why.
 *
 * @example
 * const selector = createModelSelector({ client: requireModel(config.model, { purpose: "selector" }) });
 * const { picks, failure } = await selector.select({ query: "why do login tests fail?", headers, k: 5, memoryDir });
 */
export function createModelSelector(options: ModelSelectorOptions): Selector<ModelSelection> {
  return {
    name: "model",
    async select(request, signal) {
      const candidates = request.headers.slice(0, MODEL_MANIFEST_LIMIT);
      const shownToModel = candidates.map((header) => header.file);
      const limit = Math.max(0, request.k);
      if (candidates.length === 0 || limit === 0) return { picks: [], shownToModel, unknownNames: [] };
      const { sideQuery, schema } = await selectionQuery();
      const result = await sideQuery(options.client, {
        system: selectMemoriesSystemPrompt(limit),
        user: selectMemoriesUserPrompt({
          query: request.query,
          manifest: formatManifest(candidates),
          recentTools: request.recentTools,
        }),
        schema,
        name: "memory_selection",
        maxTokens: MODEL_SELECTOR_MAX_TOKENS,
        model: options.model,
        signal,
        timeoutMs: options.timeoutMs,
      });
      if (!result.ok) {
        options.onFailure?.(result.failure);
        const failure = { kind: result.failure.kind, message: result.failure.message };
        return { picks: [], shownToModel, unknownNames: [], failure };
      }
      const known = new Set(shownToModel);
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
      return { picks, shownToModel, unknownNames };
    },
  };
}
