import type { Message } from "../../types.ts";
import type { HookDialect, HookEvent, HookInput, HookOutput } from "./hook-events.ts";
import type { JsonObject } from "./json-config.ts";
import type { RecommendedSetting } from "./prior-values.ts";

/**
 * The agents memdir runs in, by the name `memdir setup <name>` takes. Each has its folder under
 * `src/hosts/<name>/` and one `Host` in `src/hosts/registry.ts` (docs/design.md#hosts).
 */
export const HOST_NAMES = [
  "claude-code",
  "codex",
  "gemini",
  "qwen",
  "copilot",
  "opencode",
  "cursor",
  "cline",
] as const;
export type HostName = (typeof HOST_NAMES)[number];

/**
 * One agent memdir runs in, as memdir needs to know it (docs/design.md#hosts): its hooks (event
 * names, how a payload is told apart, the answer it reads), its session files, what `memdir setup`
 * writes for it, and its own memory beside memdir's. Everything host-specific lives behind this;
 * `test/hosts/contract.test.ts` runs the same checks against every host.
 */
export interface Host {
  /** The name `memdir setup` and the registry use. */
  readonly name: HostName;
  /** The agent's own name, as its users know it. */
  readonly displayName: string;
  /**
   * What memdir's hooks (or opencode's plugin, which runs the same hooks) get in it: recall and
   * "remember …" on every prompt, extraction after each turn. `memdir setup` says so
   * (src/cli/setup/from-now-on.ts).
   */
  readonly lifecycle: { readonly everyPrompt: boolean; readonly afterEachTurn: boolean };
  /** Its hook commands, or null where memdir reaches it through MCP (and a plugin) only. */
  readonly hooks: HostHooks | null;
  /**
   * Its MCP client as `memdir mcp` sees it in `initialize`, where memdir answers it differently
   * (its name, and whether it shows the model `structuredContent` beside the text), else null.
   */
  readonly mcpClient: { readonly name: RegExp; readonly showsStructuredContent: boolean } | null;
  /** Its session files, where memdir can read them for extraction, else null. */
  readonly transcript: HostTranscript | null;
  /**
   * The files `memdir setup <name>` changes, in the order it reports them. Throws
   * `SetupUsageError` for a scope the agent has no file for.
   */
  setup(request: SetupRequest): FileEdit[];
  /** The agent's own memory and how memdir lives beside it. */
  readonly nativeMemory: NativeMemory;
  /**
   * The environment variables that move this agent's folders, by the `AgentFolders` field each
   * fills (`CODEX_HOME` → `codexHome`). The command line reads them from its environment and
   * passes the values in (setup's request, `doctor`): a host never reads the environment for them.
   */
  readonly folderEnv: Readonly<Partial<Record<keyof AgentFolders, string>>>;
  /**
   * Where a model for its hooks is configured, in the words `memdir setup` ends with (default:
   * "in the environment <displayName> starts from").
   */
  readonly modelEnvWhere?: string;
  /** The variables it keeps out of its hooks' environment, where it does (Copilot CLI). */
  readonly hookEnvGap?: HookEnvGap;
  /**
   * The environment its hooks get from the files setup just wrote (`files`: each path and its
   * text after the write), where its files give hooks one (Claude Code's settings `env`).
   */
  hookEnvWritten?(files: ReadonlyArray<{ path: string; after: string }>): Record<string, string>;
  /** What `memdir setup` tells its user after writing (Codex's hook trust, opencode's plugin). */
  setupNote?(scope: SetupScope): string;
  /**
   * What `memdir doctor` reports about memdir in this agent's files that the agent would not
   * run, where the agent has such a rule (Codex's hook trust); `folders` as the user has them.
   */
  doctor?(folders: AgentFolders & { home: string }): Promise<HostIssue[]>;
}

/** A problem `memdir doctor` reports outside the memory dir. */
export interface HostIssue {
  code: "codex-hook-untrusted";
  file: string;
  message: string;
}

/** An agent's hook commands as memdir wires and answers them. */
export interface HostHooks {
  /** The events setup wires: the host's name, memdir's, and for tool events the matcher. */
  readonly events: HookEvents;
  /** How `memdir hook` tells this host's payloads and environment apart (one line, for people). */
  readonly recognizedBy: string;
  /** Whose answer format it reads (hook-events.ts, `hookOutput`). */
  readonly dialect: HookDialect;
  /** The unit its hook `timeout` setting counts in. */
  readonly timeoutUnit: "s" | "ms";
  /**
   * The JSON a hook prints for `event` with `context`, in this host's shape (`{}` when there is
   * nothing to add; `hostEventName` is the event name the host sent, repeated where it checks it).
   */
  answer(event: HookEvent, context: string | null, hostEventName?: string | null): HookOutput;
  /**
   * Whether a hook run is this host's: its parsed stdin, its environment, and the `--host` flag
   * on its command line (for a host whose payloads do not tell).
   */
  recognizes(input: HookInput, env: NodeJS.ProcessEnv, hostFlag?: string): boolean;
}

/** An agent's session files as extraction reads them. */
export interface HostTranscript {
  /** Where the agent keeps them (what its hooks name in `transcript_path`). */
  readonly location: string;
  /** The conversation in one session file's text; lines of another shape are skipped. */
  read(text: string): Message[];
}

/** An agent's own memory and memdir's place beside it (docs/design.md#coexistence). */
export interface NativeMemory {
  /** What the agent remembers by itself, or that it has no such memory. */
  readonly what: string;
  /** How memdir coexists with it. */
  readonly coexistence: string;
  /** The agent's settings `memdir setup --recommended` changes, if any. */
  readonly recommended: readonly RecommendedSetting[];
  /**
   * What `--recommended` does, in words: the settings as `memdir setup --help` names them
   * (`autoMemoryEnabled: false`) and the line setup prints after it. Set with `recommended`.
   */
  readonly recommendedWords?: { readonly settings: string; readonly done: string };
  /** How memdir's hooks step aside while its auto memory is on for the project (Claude Code). */
  readonly hooksStepAside?: HooksStepAside;
  /** Its own memory keeps saving beside memdir's unless `--recommended` turns it off (Qwen Code). */
  readonly savesBesideMemdir?: boolean;
}

/**
 * An agent's auto memory that, while on for the project (`ResolvedConfig.hostMemory`), gives the
 * index, the rules, explicit saves and extraction itself, so memdir's hooks add recall only
 * (docs/design.md#coexistence): the reasons `--explain` and `memdir doctor --verbose` print.
 */
export interface HooksStepAside {
  /** Why memdir adds recall only, given why the agent's memory is on. */
  whileOn(reason: string): string;
  /** Why memdir gives its whole cycle, given why the agent's memory is off. */
  whenOff(reason: string): string;
}

/** Variables an agent keeps out of its hooks' environment, and where a hook entry's own env is set. */
export interface HookEnvGap {
  /** The agent's name, and the short one the hook's message uses. */
  readonly agent: string;
  readonly shortName: string;
  /** The variables it strips. */
  readonly strips: readonly string[];
  /** The file whose hook entries take an `env`. */
  readonly envFile: string;
}

/** The host's event, memdir's event, and for tool events the matcher of the tools it runs after. */
export type HookEvents = Array<[event: string, memdirEvent: string, matcher?: string]>;

export type SetupScope = "user" | "project";

/**
 * The folders agents read their files from, where the user moved them with an environment
 * variable (each host's `folderEnv` names it): each agent reads its files there.
 */
export interface AgentFolders {
  /** `CLAUDE_CONFIG_DIR`: Claude Code's folder in place of `~/.claude`. */
  claudeConfigDir?: string | undefined;
  /** `CODEX_HOME`: Codex's folder in place of `~/.codex`. */
  codexHome?: string | undefined;
  /** `XDG_CONFIG_HOME`: in place of `~/.config` (opencode's `opencode/` is there). */
  xdgConfigHome?: string | undefined;
  /** `GEMINI_CLI_HOME`: Gemini CLI's home in place of `~`. */
  geminiCliHome?: string | undefined;
  /** `CLINE_DIR`: in place of `~/.cline`. */
  clineDir?: string | undefined;
  /** `CLINE_DATA_DIR`: in place of `<cline dir>/data`. */
  clineDataDir?: string | undefined;
  /** `QWEN_HOME`: Qwen Code's folder in place of `~/.qwen`. */
  qwenHome?: string | undefined;
  /** `COPILOT_HOME`: Copilot CLI's folder in place of `~/.copilot`. */
  copilotHome?: string | undefined;
}

/** Where an agent's files are and what memdir writes there. */
export interface SetupRequest extends AgentFolders {
  agent: HostName;
  scope: SetupScope;
  /** The user's home directory. */
  home: string;
  /** The repository root (`--project`). */
  projectRoot: string;
  /** How the agent starts memdir, as words: `["memdir"]`, `["npx", "-y", "memdir"]`, `[node, "/x/bin/memdir.js"]`. */
  command: string[];
  /** The same as the command line hooks run (`--command` as written, quotes and `${VARIABLES}` kept). */
  commandLine: string;
  remove: boolean;
  /**
   * Claude Code and Qwen Code: turn the agent's own auto memory off (Claude Code's
   * `autoMemoryEnabled: false`, Qwen Code's `memory.enableManagedAutoMemory: false`).
   */
  recommended: boolean;
}

/** One file and how memdir changes it. */
export type FileEdit =
  | {
      path: string;
      format: "json";
      edit: (doc: JsonObject) => JsonObject;
      /**
       * The agent's own settings `--recommended` changes in this file: setup keeps what they
       * held before, and `--remove` puts exactly that back (prior-values.ts).
       */
      recommended?: RecommendedSetting[];
    }
  | { path: string; format: "toml"; edit: (text: string | null) => string }
  /**
   * A file memdir owns whole: `text` is its content, or null to remove it. A file there that does
   * not start with `marker` is not memdir's: it is left alone (and reported unchanged).
   */
  | { path: string; format: "file"; text: string | null; marker: string };

/** A usage problem (`--project` where an agent has no project file). */
export class SetupUsageError extends Error {}
