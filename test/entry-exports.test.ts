// The public surface, pinned: every name each package entry exports, and no type the exports
// mention left unexported. An addition or removal here is a deliberate change to the API: update
// the list in the same commit (and README/AGENTS.md when an entry's purpose changes).
import assert from "node:assert/strict";
import fs from "node:fs";
import { before, describe, it } from "node:test";
import { type PublicSurface, publicEntries, readPublicSurface } from "./helpers/public-api.ts";

/** The root export's budget (issue 15): the everyday names only; the rest lives under subpaths. */
const ROOT_MAX_NAMES = 40;

// Sorted by name; `type X` is a type-only export.
const EXPECTED: Record<string, string[]> = {
  ".": [
    "type AgentSession",
    "type AgentSessionOptions",
    "type CappedRead",
    "type Clock",
    "createAgentSession",
    "createHybridSelector",
    "createLexicalSelector",
    "createModelSelector",
    "type HybridSelectorOptions",
    "isMemdirError",
    "type LexicalSelectorOptions",
    "MemdirError",
    "type MemdirErrorCode",
    "MEMORY_TYPES",
    "type MemoryHeader",
    "type MemoryLocation",
    "type MemoryLocationOptions",
    "type MemoryType",
    "type Message",
    "type ModelClient",
    "type ModelSelectorOptions",
    "type Pick",
    "readMemoryCapped",
    "recall",
    "type RecallOptions",
    "type RecallResult",
    "removeMemory",
    "resolveMemoryLocation",
    "saveMemory",
    "type SaveMemoryInput",
    "type SaveMemoryResult",
    "scanHeaders",
    "type ScanOptions",
    "type Selector",
    "type SelectorOptions",
    "type SurfacedMemory",
  ],
  "./agent": [
    "type BeforeModelContext",
    "type BeforeModelHook",
    "type BeforeModelResult",
    "createHookRegistry",
    "createInstructionLoader",
    "createMemoryTools",
    "createToolContext",
    "defaultTools",
    "editTool",
    "type ForkedAgentOptions",
    "type ForkedAgentResult",
    "formatUserContext",
    "getMemoryFiles",
    "globTool",
    "grepTool",
    "type HookRegistry",
    "type InstructionFile",
    "type InstructionFileType",
    "type InstructionLoader",
    "listTranscripts",
    "type LoadedTranscript",
    "loadMemoryRules",
    "loadTranscript",
    "type LoopEvent",
    "type LoopMemory",
    "mainAgentPermissions",
    "type MemoryFilesOptions",
    "memoryOnlyPermissions",
    "type MemoryRulesOptions",
    "memorySystemPrompt",
    "type MemoryToolAnnotations",
    "type MemoryToolOutcome",
    "type MemoryToolsOptions",
    "type MemoryToolSpec",
    "newSessionId",
    "openTranscript",
    "type PermissionCheck",
    "type PermissionDecision",
    "prependUserContext",
    "queryLoop",
    "type QueryLoopOptions",
    "type ReadFileState",
    "readTool",
    "type RefusedCall",
    "runForkedAgent",
    "type StopHook",
    "type StopHookContext",
    "type ToolContext",
    "toolDefinition",
    "type ToolResult",
    "type ToolSpec",
    "type Transcript",
    "type TranscriptInfo",
    "transcriptPath",
    "type TurnEndReason",
    "USER_CONTEXT_MESSAGE_ID",
    "writeTool",
  ],
  "./config": [
    "type ConfigOptions",
    "type MemdirSettings",
    "type ModelConfig",
    "type Provider",
    "resolveAutoMemory",
    "resolveConfig",
    "type ResolvedConfig",
    "resolveModelConfig",
    "resolveRoot",
  ],
  "./dream": [
    "applyProposal",
    "type AutoConsolidationOptions",
    "type ConsolidationOptions",
    "type ConsolidationResult",
    "type DreamDecision",
    "type DreamGateSettings",
    "evaluateDreamGates",
    "type FileChange",
    "type GateInput",
    "type HistoryEntry",
    "type HistoryKind",
    "type HistoryOptions",
    "listHistory",
    "listProposals",
    "maybeStartConsolidation",
    "type ProcessProbe",
    "type Proposal",
    "proposeChanges",
    "type ProposedChange",
    "runConsolidation",
    "runOfflineConsolidation",
    "SessionScanThrottle",
    "undoChange",
  ],
  "./extract": [
    "applyExplicitMemory",
    "createExtractor",
    "type ExplicitIntent",
    "type ExplicitMemoryOptions",
    "type ExplicitMemoryResult",
    "type ExtractionReport",
    "type ExtractionRequest",
    "type ExtractionRunOptions",
    "type ExtractionRunResult",
    "type Extractor",
    "type ExtractorOptions",
    "findMemoryToForget",
    "installMemoryHooks",
    "type MemoryHooks",
    "type MemoryHooksOptions",
    "parseExplicitMemory",
    "type RefusedWrite",
    "rememberStatement",
    "runExtraction",
  ],
  "./format": [
    "agentMemoryDir",
    "assertInsideMemoryDir",
    "assertNoSecrets",
    "diagnoseMemoryDir",
    "type DoctorIssue",
    "ensureMemoryDir",
    "findOrphanedMemoryDirs",
    "findProjectRoot",
    "findSecrets",
    "formatIndexLine",
    "formatManifest",
    "type FrontmatterIssue",
    "HeaderCache",
    "type HeaderCacheOptions",
    "INDEX_MAX_BYTES",
    "INDEX_MAX_LINES",
    "type IndexEntry",
    "type IndexLimit",
    "type IndexRead",
    "isMemoryType",
    "type LockOptions",
    "manifestLine",
    "MEMORY_MAX_BYTES",
    "MEMORY_MAX_LINES",
    "migrateMemory",
    "type MigrateMemoryOptions",
    "type OrphanedMemoryDir",
    "type ParsedMemory",
    "parseFrontmatter",
    "parseIndex",
    "readIndex",
    "repairMemoryDir",
    "resolveInsideMemoryDir",
    "type SafePathOptions",
    "type SafePathResult",
    "sanitizeProjectPath",
    "type SecretFinding",
    "serializeMemory",
    "type UnsafePathRule",
    "writeMemoryText",
    "type WriteOptions",
  ],
  "./mcp": ["createMemdirServer", "type MemdirServerOptions", "serveStdio", "type StdioServerOptions"],
  "./model": [
    "type AnthropicClientOptions",
    "type ContentBlock",
    "createAnthropicClient",
    "createModelClientFromConfig",
    "createOpenAIClient",
    "defaultModelFor",
    "type HttpModelClientOptions",
    "messageText",
    "type ModelClientFactoryOptions",
    "type ModelRequest",
    "type ModelResponse",
    "type ModelStreamEvent",
    "type OpenAIClientOptions",
    "requireModel",
    "sideQuery",
    "type SideQueryFailure",
    "type SideQueryOptions",
    "type SideQueryResult",
    "type StopReason",
    "type TextBlock",
    "type ToolDefinition",
    "type ToolResultBlock",
    "type ToolUseBlock",
    "type Usage",
    "withJsonRepair",
  ],
  "./recall": [
    "type CandidateStatus",
    "collectSettledMemories",
    "DEFAULT_RECALL_K",
    "type EvalOptions",
    "type EvalQuery",
    "type EvalReport",
    "type EvalScores",
    "type FieldName",
    "formatSurfacedMemory",
    "LexicalIndexCache",
    "type LexicalTuning",
    "memoryFreshnessCaveat",
    "memoryHeader",
    "type MemoryPrefetch",
    "type ModelSelectionDetails",
    "modelSelectionDetails",
    "type PrefetchContext",
    "type PrefetchResult",
    "readEvalQueries",
    "readWordVectors",
    "type RecallCandidate",
    "type RelatedWordTuning",
    "runEval",
    "type Selection",
    "type SelectionOptions",
    "selectMemories",
    "SELECTOR_NAMES",
    "selectorFromConfig",
    "type SelectorName",
    "type SelectorTrace",
    "SESSION_MEMORY_BUDGET_BYTES",
    "startRelevantMemoryPrefetch",
    "surfacedMemoryMessage",
    "WordVectors",
    "wrapSystemReminder",
  ],
  "./testing": [
    "type FakeModelServer",
    "type FakeRequest",
    "type FakeStep",
    "type FakeStepFunction",
    "type FakeToolCall",
    "startFakeModelServer",
  ],
};

describe("the public surface", () => {
  let surface: PublicSurface;
  before(() => {
    surface = readPublicSurface();
  });

  it("maps every package.json entry to a source file under src/", () => {
    for (const entry of publicEntries())
      assert.ok(fs.existsSync(entry.source), `${entry.subpath}: ${entry.source}`);
  });

  it("exports exactly the committed names from each entry", () => {
    assert.deepEqual(surface.exports, EXPECTED);
  });

  it(`keeps the root export to at most ${ROOT_MAX_NAMES} names`, () => {
    assert.ok(surface.exports["."].length <= ROOT_MAX_NAMES, `${surface.exports["."].length} names`);
  });

  it("gives every name one home: no name is exported from two entries", () => {
    const homes = new Map<string, string>();
    for (const [subpath, names] of Object.entries(surface.exports))
      for (const name of names) {
        const bare = name.replace(/^type /, "");
        assert.equal(
          homes.get(bare),
          undefined,
          `${bare} is exported from ${homes.get(bare)} and ${subpath}`,
        );
        homes.set(bare, subpath);
      }
  });

  it("exports every type declared in src/ that an exported signature mentions", () => {
    const missing = surface.unexported.map(
      (type) => `${type.name} (${type.declaredIn}), reached from ${type.reachedFrom}`,
    );
    assert.deepEqual(missing, []);
  });

  it("has, at run time, exactly the value exports the list names", async () => {
    for (const entry of publicEntries()) {
      const loaded = Object.keys(await import(entry.source)).sort();
      const values = EXPECTED[entry.subpath].filter((name) => !name.startsWith("type ")).sort();
      assert.deepEqual(loaded, values, entry.subpath);
    }
  });
});
