import type { RecallOptions, RecallResult } from "./recall.ts";
import type { LexicalSelectorOptions } from "./select-lexical.ts";
import type { ModelSelection, ModelSelectorOptions } from "./select-model.ts";
import type { Selection, Selector } from "./selector.ts";

/**
 * The root export's recall and selectors (`import { recall } from "memdir"`), loading their
 * implementation on first use instead of with `import("memdir")`: the lexical engine (its
 * tokenizer, stages, date parser and word vectors) and the model selector's prompts stay unloaded
 * until a selection runs (issue 17; docs/design.md#lazy-entry). Same signatures and behaviour as
 * what they load: a factory returns its selector at once, and the selector loads its
 * implementation on its first `select`.
 */

/**
 * Recalls memories for a query (scan, select, read, surface); the implementation loads on the first call.
 *
 * @example
 * const result = await recall({ memoryDir, query: "修复登录测试", selector: createLexicalSelector() });
 * for (const message of result.messages) console.log(message.content);
 */
export async function recall(options: RecallOptions): Promise<RecallResult> {
  return (await import("./recall.ts")).recall(options);
}

/**
 * The offline selector: BM25F over file name, description, type and body, with the passage,
 * saved-together, recency and floor stages. The lexical engine loads on the first `select`.
 *
 * @example
 * const selector = createLexicalSelector();
 * const { picks } = await selector.select({ query: "why do login tests hit a real database?", headers, k: 5, memoryDir });
 */
export function createLexicalSelector(options: LexicalSelectorOptions = {}): Selector {
  return loadingSelector("lexical", async () =>
    (await import("./select-lexical.ts")).createLexicalSelector(options),
  );
}

/**
 * The faithful selector: one model side query over a manifest of at most 200 headers. Its
 * prompts and schema load on the first `select`.
 *
 * @example
 * const selector = createModelSelector({ client });
 * const { picks, failure } = await selector.select({ query: "why do login tests fail?", headers, k: 5, memoryDir });
 */
export function createModelSelector(options: ModelSelectorOptions): Selector<ModelSelection> {
  return loadingSelector("model", async () =>
    (await import("./select-model.ts")).createModelSelector(options),
  );
}

/** A selector named `name` that makes the real one with `load` on its first `select`. */
function loadingSelector<S extends Selection>(name: string, load: () => Promise<Selector<S>>): Selector<S> {
  let loaded: Promise<Selector<S>> | undefined;
  return {
    name,
    async select(request, signal) {
      loaded ??= load();
      return (await loaded).select(request, signal);
    },
  };
}
