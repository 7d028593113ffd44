/**
 * memdir — long-term memory for LLM agents. The public API, chosen on purpose: the on-disk
 * format and its single writer, session context, recall, model clients, the reference agent
 * loop, extraction, consolidation and the MCP server. Vendor SDKs load only when their client
 * is used. The fake model server for tests is the separate `memdir/testing` export.
 *
 * @example
 * import { resolveMemoryLocation, saveMemory, recall, createLexicalSelector } from "memdir";
 * const { memoryDir } = await resolveMemoryLocation({ cwd: process.cwd() });
 * await saveMemory(memoryDir, { type: "feedback", description: "use pnpm, not npm", body: "Why: the lockfile is pnpm's." });
 * const result = await recall({ memoryDir, query: "how do I install deps?", selector: createLexicalSelector() });
 */

export { type ForkedAgentOptions, type ForkedAgentResult, runForkedAgent } from "./agent/fork.ts";
export { type BeforeModelHook, createHookRegistry, type HookRegistry, type StopHook } from "./agent/hooks.ts";
export {
  type LoopEvent,
  type LoopMemory,
  type QueryLoopOptions,
  queryLoop,
  type TurnEndReason,
} from "./agent/loop.ts";
export { createMemoryTools } from "./agent/memory-tools.ts";
export {
  mainAgentPermissions,
  memoryOnlyPermissions,
  type PermissionCheck,
  type PermissionDecision,
} from "./agent/permissions.ts";
export { type AgentSession, type AgentSessionOptions, createAgentSession } from "./agent/session.ts";
// The reference agent
export {
  createToolContext,
  defaultTools,
  editTool,
  globTool,
  grepTool,
  readTool,
  type ToolContext,
  type ToolResult,
  type ToolSpec,
  toolDefinition,
  writeTool,
} from "./agent/tools.ts";
export {
  listTranscripts,
  loadTranscript,
  newSessionId,
  openTranscript,
  type Transcript,
  transcriptPath,
} from "./agent/transcript.ts";
export {
  type ConfigOptions,
  type MemdirSettings,
  type ModelConfig,
  type Provider,
  type ResolvedConfig,
  resolveAutoMemory,
  resolveConfig,
  resolveModelConfig,
  resolveRoot,
} from "./config.ts";
// Consolidation
export {
  type ConsolidationOptions,
  type ConsolidationResult,
  maybeStartConsolidation,
  runConsolidation,
  runOfflineConsolidation,
} from "./dream/consolidate.ts";
export { dedupeMemories, findDuplicateGroups } from "./dream/dedupe.ts";
export { type DreamDecision, evaluateDreamGates } from "./dream/gate.ts";
export { listHistory, undoChange } from "./dream/history.ts";
export { acquireConsolidationLock, inspectConsolidationLock } from "./dream/lock.ts";
export { applyProposal, listProposals, proposeChanges } from "./dream/proposal.ts";
// Errors, types, configuration
export { isMemdirError, MemdirError, type MemdirErrorCode } from "./errors.ts";
// Extraction and explicit memory
export {
  applyExplicitMemory,
  type ExplicitMemoryResult,
  findMemoryToForget,
  rememberStatement,
} from "./extract/explicit.ts";
export { type ExplicitIntent, parseExplicitMemory } from "./extract/explicit-intent.ts";
export {
  createExtractor,
  type ExtractionReport,
  type Extractor,
  type ExtractorOptions,
} from "./extract/extractor.ts";
export { type ExtractionRunResult, runExtraction } from "./extract/run-extraction.ts";
export { installMemoryHooks, type MemoryHooks, type MemoryHooksOptions } from "./extract/wire.ts";
// Session context: instruction files, the index, the memory rules
export {
  getMemoryFiles,
  type InstructionFile,
  type InstructionFileType,
  type MemoryFilesOptions,
} from "./instructions/files.ts";
export { createInstructionLoader, type InstructionLoader } from "./instructions/loader.ts";
export { loadMemoryRules } from "./instructions/memory-rules.ts";
export {
  formatUserContext,
  prependUserContext,
  USER_CONTEXT_MESSAGE_ID,
} from "./instructions/user-context.ts";
// Integrations
export { createMemdirServer } from "./mcp/server.ts";
export { serveStdio } from "./mcp/stdio.ts";
export { writeFileAtomic } from "./memdir/atomic.ts";
export { type DoctorIssue, diagnoseMemoryDir, repairMemoryDir } from "./memdir/doctor.ts";
export {
  type FrontmatterIssue,
  type ParsedMemory,
  parseFrontmatter,
  serializeMemory,
} from "./memdir/frontmatter.ts";
export {
  formatIndexLine,
  INDEX_MAX_BYTES,
  INDEX_MAX_LINES,
  type IndexEntry,
  type IndexRead,
  parseIndex,
  readIndex,
  removeIndexLine,
  upsertIndexLine,
} from "./memdir/index-file.ts";
// The memory directory: location, format, the single writer
export {
  agentMemoryDir,
  ensureMemoryDir,
  findOrphanedMemoryDirs,
  findProjectRoot,
  type MemoryLocation,
  migrateMemory,
  resolveMemoryLocation,
  sanitizeProjectPath,
} from "./memdir/paths.ts";
export {
  flushPersistedCaches,
  NO_CACHE_ENV,
  type PersistedCacheStats,
  persistedCacheStats,
} from "./memdir/persisted-cache.ts";
export { type CappedRead, MEMORY_MAX_BYTES, MEMORY_MAX_LINES, readMemoryCapped } from "./memdir/read.ts";
export { assertInsideMemoryDir, resolveInsideMemoryDir, type SafePathResult } from "./memdir/safe-path.ts";
export {
  defaultHeaderCache,
  formatManifest,
  HeaderCache,
  manifestLine,
  type ScanOptions,
  scanHeaders,
} from "./memdir/scan.ts";
export { assertNoSecrets, findSecrets, type SecretFinding } from "./memdir/secrets.ts";
export {
  removeMemory,
  type SaveMemoryInput,
  type SaveMemoryResult,
  saveMemory,
  updateIndex,
  withMemoryLock,
  writeMemoryText,
} from "./memdir/write.ts";
export { type AnthropicClientOptions, createAnthropicClient } from "./model/anthropic.ts";
// Model clients
export type {
  HttpModelClientOptions,
  ModelClient,
  ModelRequest,
  ModelResponse,
  ModelStreamEvent,
  StopReason,
  ToolDefinition,
  Usage,
} from "./model/client.ts";
export { createModelClientFromConfig, defaultModelFor, requireModel } from "./model/factory.ts";
export { withJsonRepair } from "./model/json-repair.ts";
export { createOpenAIClient, type OpenAIClientOptions } from "./model/openai.ts";
export {
  type SideQueryFailure,
  type SideQueryOptions,
  type SideQueryResult,
  sideQuery,
} from "./model/side-query.ts";
export { type MemoryRulesOptions, memorySystemPrompt } from "./prompts/memory-rules.ts";
export { SESSION_MEMORY_BUDGET_BYTES } from "./recall/budget.ts";
export { type EvalOptions, type EvalReport, readEvalQueries, runEval } from "./recall/eval.ts";
export {
  type CandidateStatus,
  explainRecall,
  type RecallCandidate,
  type RecallEvidence,
} from "./recall/explain.ts";
export {
  collectSettledMemories,
  type MemoryPrefetch,
  type PrefetchContext,
  type PrefetchResult,
  prefetchGate,
  startRelevantMemoryPrefetch,
} from "./recall/prefetch.ts";
export {
  DEFAULT_RECALL_K,
  type MemorySelection,
  type RecallOptions,
  type RecallResult,
  recall,
  type SelectionOptions,
  type SurfacedMemory,
  selectMemories,
} from "./recall/recall.ts";
export { SELECTOR_NAMES, type SelectorName, selectorFromConfig } from "./recall/select-from-config.ts";
export { createHybridSelector, type HybridSelectorOptions } from "./recall/select-hybrid.ts";
export { createLexicalSelector, type LexicalSelectorOptions } from "./recall/select-lexical.ts";
export {
  createModelSelector,
  type ModelSelection,
  type ModelSelectorOptions,
} from "./recall/select-model.ts";
// Recall
export type {
  MemoryPick,
  Selection,
  SelectionDetails,
  SelectionFailure,
  SelectionRequest,
  Selector,
} from "./recall/selector.ts";
export {
  formatSurfacedMemory,
  memoryFreshnessCaveat,
  memoryHeader,
  surfacedMemoryMessage,
  wrapSystemReminder,
} from "./recall/surface.ts";
export { countWords } from "./recall/words.ts";
export {
  type Clock,
  type ContentBlock,
  isMemoryType,
  MEMORY_TYPES,
  type MemoryHeader,
  type MemoryType,
  type Message,
  messageText,
  type ReadFileState,
  type TextBlock,
  type ToolResultBlock,
  type ToolUseBlock,
} from "./types.ts";
