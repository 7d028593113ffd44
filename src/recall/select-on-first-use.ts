import type { Selector } from "./selector.ts";

/**
 * A selector whose implementation loads on its first `select`: the MCP server answers its
 * handshake without the lexical engine or a model client (hosts give a server 1-3 s to start,
 * docs/design.md#mcp-server). `name` is `expected` until it has loaded, then the loaded one's.
 *
 * @example
 * const selector = selectorOnFirstUse("lexical", async () => (await import("./select-lexical.ts")).createLexicalSelector());
 */
export function selectorOnFirstUse(expected: string, load: () => Promise<Selector>): Selector {
  let loaded: Selector | undefined;
  let loading: Promise<Selector> | undefined;
  return {
    get name() {
      return loaded?.name ?? expected;
    },
    async select(request, signal) {
      loading ??= load();
      loaded = await loading;
      return loaded.select(request, signal);
    },
  };
}
