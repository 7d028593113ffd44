/**
 * `memdir/extract` — saving memories from a conversation: the offline "remember …" / "forget …"
 * rule, background extraction after each turn, and the hooks that install both into a loop.
 *
 * @example
 * import { installMemoryHooks } from "memdir/extract";
 * const memory = installMemoryHooks({ hooks, memoryDir, cwd, client });
 */

export {
  applyExplicitMemory,
  type ExplicitMemoryOptions,
  type ExplicitMemoryResult,
  findMemoryToForget,
  type MemoryToForget,
  rememberStatement,
} from "../extract/explicit.ts";
export { type ExplicitIntent, parseExplicitMemory } from "../extract/explicit-intent.ts";
export {
  createExtractor,
  type ExtractionReport,
  type ExtractionRequest,
  type Extractor,
  type ExtractorOptions,
} from "../extract/extractor.ts";
export {
  type ExtractionRunOptions,
  type ExtractionRunResult,
  type RefusedWrite,
  runExtraction,
} from "../extract/run-extraction.ts";
export { installMemoryHooks, type MemoryHooks, type MemoryHooksOptions } from "../extract/wire.ts";
