/**
 * `memdir/agent` — the reference agent, in parts, for a loop of your own: the query loop, its
 * tools and permissions, hooks, forked side agents, transcripts, and the session context (the
 * instruction files, the user-context block and the memory rules). `createAgentSession` in the
 * root export wires all of it from configuration.
 *
 * @example
 * import { createToolContext, defaultTools, mainAgentPermissions, queryLoop } from "memdir/agent";
 */

export {
  type ForkedAgentOptions,
  type ForkedAgentResult,
  type RefusedCall,
  runForkedAgent,
} from "../agent/fork.ts";
export {
  type BeforeModelContext,
  type BeforeModelHook,
  type BeforeModelResult,
  createHookRegistry,
  type HookRegistry,
  type StopHook,
  type StopHookContext,
} from "../agent/hooks.ts";
export {
  type LoopEvent,
  type LoopMemory,
  type QueryLoopOptions,
  queryLoop,
  type TurnEndReason,
} from "../agent/loop.ts";
export { createMemoryTools } from "../agent/memory-tools/index.ts";
export type {
  MemoryToolAnnotations,
  MemoryToolOutcome,
  MemoryToolSpec,
  MemoryToolsOptions,
} from "../agent/memory-tools/spec.ts";
export {
  mainAgentPermissions,
  memoryOnlyPermissions,
  type PermissionCheck,
  type PermissionDecision,
} from "../agent/permissions.ts";
export {
  createToolContext,
  type ToolContext,
  type ToolResult,
  type ToolSpec,
  toolDefinition,
} from "../agent/tools/spec.ts";
export { defaultTools, editTool, globTool, grepTool, readTool, writeTool } from "../agent/tools.ts";
export {
  type LoadedTranscript,
  listTranscripts,
  loadTranscript,
  newSessionId,
  openTranscript,
  type Transcript,
  type TranscriptInfo,
  transcriptPath,
} from "../agent/transcript.ts";
export {
  getMemoryFiles,
  type InstructionFile,
  type InstructionFileType,
  type MemoryFilesOptions,
} from "../instructions/files.ts";
export { createInstructionLoader, type InstructionLoader } from "../instructions/loader.ts";
export { loadMemoryRules } from "../instructions/memory-rules.ts";
export {
  formatUserContext,
  prependUserContext,
  USER_CONTEXT_MESSAGE_ID,
} from "../instructions/user-context.ts";
export { type MemoryRulesOptions, memorySystemPrompt } from "../prompts/memory-rules.ts";
export type { ChangeRecorder, ReadFileState, RecordedChange } from "../types.ts";
