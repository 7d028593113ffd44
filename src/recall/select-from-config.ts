import type { ResolvedConfig } from "../config.ts";
import { MemdirError } from "../errors.ts";
import { createModelClientFromConfig, requireModel } from "../model/factory.ts";
import { createHybridSelector } from "./select-hybrid.ts";
import { createLexicalSelector } from "./select-lexical.ts";
import { createModelSelector } from "./select-model.ts";
import type { Selector } from "./selector.ts";

/** The selectors a user can name on the command line. */
export const SELECTOR_NAMES = ["lexical", "model", "hybrid"] as const;
export type SelectorName = (typeof SELECTOR_NAMES)[number];

/**
 * The selector for a command: the one named, else `hybrid` when a model is configured and
 * `lexical` when memdir is offline (docs/design.md#selectors). Naming `model` or `hybrid` with no model configured
 * throws `MemdirError("no-model")`, whose one line names the variable to set.
 *
 * @example
 * const { selector, name } = selectorFromConfig(undefined, resolveConfig({ env: process.env }));
 */
export function selectorFromConfig(
  requested: string | undefined,
  config: ResolvedConfig,
): { selector: Selector; name: SelectorName } {
  if (requested !== undefined && !(SELECTOR_NAMES as readonly string[]).includes(requested)) {
    throw new MemdirError(
      "usage",
      `recall: unknown selector "${requested}" (choose ${SELECTOR_NAMES.join(", ")})`,
    );
  }
  const lexical = createLexicalSelector();
  if (requested === "lexical") return { selector: lexical, name: "lexical" };
  const client =
    requested === undefined
      ? createModelClientFromConfig(config.model, { purpose: "selector" })
      : requireModel(config.model, { purpose: "selector" });
  if (client === null) return { selector: lexical, name: "lexical" };
  const model = createModelSelector({ client });
  if (requested === "model") return { selector: model, name: "model" };
  return { selector: createHybridSelector({ candidates: lexical, chooser: model }), name: "hybrid" };
}
