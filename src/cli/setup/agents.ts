import path from "node:path";
import { type HookEntry, type JsonObject, withHooks, withKey, withServer } from "./json-config.ts";
import { OPENCODE_PLUGIN_MARKER, opencodePluginSource } from "./opencode-plugin.ts";
import { withServerTable } from "./toml-config.ts";

/** The agents `memdir setup` knows. */
export const SETUP_AGENTS = [
  "claude-code",
  "codex",
  "gemini",
  "qwen",
  "copilot",
  "opencode",
  "cursor",
  "cline",
] as const;
export type SetupAgent = (typeof SETUP_AGENTS)[number];
export type SetupScope = "user" | "project";

/** Where an agent's files are and what memdir writes there. */
export interface SetupRequest {
  agent: SetupAgent;
  scope: SetupScope;
  /** The user's home directory. */
  home: string;
  /** The repository root (`--project`). */
  projectRoot: string;
  /**
   * `CLAUDE_CONFIG_DIR`, `CODEX_HOME`, `XDG_CONFIG_HOME`, `GEMINI_CLI_HOME` (Gemini CLI's home in
   * place of `~`), `CLINE_DIR` (in place of `~/.cline`) and `CLINE_DATA_DIR` (in place of
   * `<cline dir>/data`) as the user has them: each agent reads its files there.
   */
  claudeConfigDir?: string | undefined;
  codexHome?: string | undefined;
  xdgConfigHome?: string | undefined;
  geminiCliHome?: string | undefined;
  clineDir?: string | undefined;
  clineDataDir?: string | undefined;
  /** `QWEN_HOME`: Qwen Code's folder in place of `~/.qwen`. */
  qwenHome?: string | undefined;
  /** `COPILOT_HOME`: Copilot CLI's folder in place of `~/.copilot`. */
  copilotHome?: string | undefined;
  /** How the agent starts memdir: `memdir` (on PATH), `npx -y memdir`, `node /x/bin/memdir.js`. */
  command: string;
  remove: boolean;
  /**
   * Claude Code and Qwen Code: turn the agent's own auto memory off (Claude Code's
   * `autoMemoryEnabled: false`, Qwen Code's `memory.enableManagedAutoMemory: false`).
   */
  recommended: boolean;
}

/** One file and how memdir changes it. */
export type FileEdit =
  | { path: string; format: "json"; edit: (doc: JsonObject) => JsonObject }
  | { path: string; format: "toml"; edit: (text: string | null) => string }
  /**
   * A file memdir owns whole: `text` is its content, or null to remove it. A file there that does
   * not start with `marker` is not memdir's: it is left alone (and reported unchanged).
   */
  | { path: string; format: "file"; text: string | null; marker: string };

/** A usage problem (`--project` where an agent has no project file). */
export class SetupUsageError extends Error {}

function words(command: string): string[] {
  return command.trim().split(/\s+/);
}

/** The MCP server as most agents write it: `{command, args}` (`["mcp"]` after the prefix's own words). */
function mcpServer(request: SetupRequest): { command: string; args: string[] } {
  const [command = "memdir", ...rest] = words(request.command);
  return { command, args: [...rest, "mcp"] };
}

function hookCommand(request: SetupRequest, event: string, host?: string): string {
  return `${request.command.trim()} hook ${event}${host === undefined ? "" : ` --host ${host}`}`;
}

/**
 * Claude Code's hook shape, which Codex and Gemini CLI share: event → `[{matcher?, hooks:
 * [{type: "command", command, timeout}]}]`. Claude Code and Codex count `timeout` in seconds,
 * Gemini CLI in milliseconds (and names each hook). memdir bounds its own work (8 s for a
 * prompt, `DEFAULT_HOOK_TIMEOUT_MS`), so the timeout only caps a hook that hangs.
 */
function groupHooks(request: SetupRequest, events: HookEvents, unit: "s" | "ms"): HookEntry[] {
  return events.map(([event, memdirEvent, matcher]) => ({
    event,
    entry: {
      ...(matcher === undefined ? {} : { matcher }),
      hooks: [
        {
          ...(unit === "ms" ? { name: `memdir-${memdirEvent}` } : {}),
          type: "command",
          command: hookCommand(request, memdirEvent),
          timeout: unit === "ms" ? 10_000 : 10,
        },
      ],
    },
  }));
}

/** The host's event, memdir's event, and for tool events the matcher of the tools it runs after. */
type HookEvents = Array<[event: string, memdirEvent: string, matcher?: string]>;

/**
 * Claude Code also runs `post-tool-use` after its file tools: the memories about the file the
 * agent just read or edited (docs/design.md#file-hook). PostToolUse, not PreToolUse: Claude Code
 * passes PostToolUse's `additionalContext` to the model with the tool's result.
 */
const CLAUDE_EVENTS: HookEvents = [
  ["SessionStart", "session-start"],
  ["UserPromptSubmit", "user-prompt-submit"],
  ["PostToolUse", "post-tool-use", "Read|Edit|Write|MultiEdit|NotebookEdit"],
  ["Stop", "stop"],
];
/**
 * Qwen Code and Copilot CLI: Claude Code's event names, without the file hook: their file tools
 * have other names and their payloads were not checked against the real binaries.
 */
const CLAUDE_NAMES_WITHOUT_FILE_HOOK: HookEvents = CLAUDE_EVENTS.filter(([event]) => event !== "PostToolUse");
/**
 * Codex: no tool hook. Its file edits go through `apply_patch` (a patch text, not a path argument)
 * and its reads through shell commands, so there is no file to read from a tool call.
 */
const CODEX_EVENTS: HookEvents = [
  ["SessionStart", "session-start"],
  ["UserPromptSubmit", "user-prompt-submit"],
  ["Stop", "stop"],
];
/** Gemini CLI's AfterTool takes `hookSpecificOutput.additionalContext` as AfterAgent does. */
const GEMINI_EVENTS: HookEvents = [
  ["SessionStart", "session-start"],
  ["BeforeAgent", "before-agent"],
  ["AfterTool", "after-tool", "read_file|write_file|replace"],
  ["AfterAgent", "after-agent"],
];
/**
 * Cursor: `sessionStart` (rules and index) and `stop` (extraction). Not `beforeSubmitPrompt`:
 * Cursor lets that event allow or block the prompt, not add context, so recall in Cursor goes
 * through the MCP tools.
 */
const CURSOR_EVENTS: HookEvents = [
  ["sessionStart", "session-start"],
  ["stop", "stop"],
];

function hooksEdit(
  file: string,
  entries: HookEntry[],
  request: SetupRequest,
  extra?: (doc: JsonObject) => JsonObject,
): FileEdit {
  return {
    path: file,
    format: "json",
    edit: (doc) => {
      const hooked = withHooks(doc, request.remove ? [] : entries, file);
      return extra ? extra(hooked) : hooked;
    },
  };
}

function serverEdit(file: string, key: string, server: JsonObject, request: SetupRequest): FileEdit {
  return {
    path: file,
    format: "json",
    edit: (doc) => withServer(doc, key, request.remove ? null : server, file),
  };
}

function claudeCode(request: SetupRequest): FileEdit[] {
  const configDir = request.claudeConfigDir ?? path.join(request.home, ".claude");
  const project = request.scope === "project";
  const settings = project
    ? path.join(request.projectRoot, ".claude", "settings.json")
    : path.join(configDir, "settings.json");
  // User-scope MCP servers live in ~/.claude.json (inside CLAUDE_CONFIG_DIR when that is set);
  // project-scope ones in the repository's .mcp.json.
  const mcp = project
    ? path.join(request.projectRoot, ".mcp.json")
    : request.claudeConfigDir
      ? path.join(request.claudeConfigDir, ".claude.json")
      : path.join(request.home, ".claude.json");
  // The recommended setup: Claude Code's auto memory off, memdir on. memdir reads
  // `autoMemoryEnabled` as well (docs/recall.md#turning-memory-off), so the same settings file
  // also sets MEMDIR_DISABLE=0 in its `env` — which Claude Code hands to every hook and MCP server,
  // and which wins over the setting for memdir.
  const autoMemory = (doc: JsonObject): JsonObject => {
    if (!request.recommended) return doc;
    const env =
      typeof doc.env === "object" && doc.env !== null && !Array.isArray(doc.env)
        ? (doc.env as JsonObject)
        : {};
    if (request.remove) {
      let next = doc.autoMemoryEnabled === false ? withKey(doc, "autoMemoryEnabled", undefined) : doc;
      if (env.MEMDIR_DISABLE === "0") {
        const { MEMDIR_DISABLE: _ours, ...rest } = env;
        next = withKey(next, "env", Object.keys(rest).length > 0 ? rest : undefined);
      }
      return next;
    }
    return withKey(withKey(doc, "autoMemoryEnabled", false), "env", { ...env, MEMDIR_DISABLE: "0" });
  };
  return [
    hooksEdit(settings, groupHooks(request, CLAUDE_EVENTS, "s"), request, autoMemory),
    serverEdit(mcp, "mcpServers", { type: "stdio", ...mcpServer(request) }, request),
  ];
}

function codex(request: SetupRequest): FileEdit[] {
  const dir =
    request.scope === "project"
      ? path.join(request.projectRoot, ".codex")
      : (request.codexHome ?? path.join(request.home, ".codex"));
  const config = path.join(dir, "config.toml");
  const server = mcpServer(request);
  return [
    hooksEdit(path.join(dir, "hooks.json"), groupHooks(request, CODEX_EVENTS, "s"), request),
    {
      path: config,
      format: "toml",
      edit: (text) => withServerTable(text, request.remove ? null : server, config),
    },
  ];
}

function gemini(request: SetupRequest): FileEdit[] {
  const base = request.scope === "project" ? request.projectRoot : (request.geminiCliHome ?? request.home);
  const settings = path.join(base, ".gemini", "settings.json");
  return [
    hooksEdit(settings, groupHooks(request, GEMINI_EVENTS, "ms"), request, (doc) =>
      withServer(doc, "mcpServers", request.remove ? null : mcpServer(request), settings),
    ),
  ];
}

/**
 * opencode: the MCP server in `opencode.json` (user: `~/.config/opencode/`, `XDG_CONFIG_HOME` in
 * place of `~/.config`; project: the repository root), and memdir's plugin in the `plugins/`
 * folder beside it (`.opencode/plugins/` for a project), which brings the index and recall as
 * hooks do elsewhere (src/cli/setup/opencode-plugin.ts).
 */
function opencode(request: SetupRequest): FileEdit[] {
  const configDir =
    request.scope === "project"
      ? request.projectRoot
      : path.join(request.xdgConfigHome ?? path.join(request.home, ".config"), "opencode");
  const pluginDir =
    request.scope === "project"
      ? path.join(request.projectRoot, ".opencode", "plugins")
      : path.join(configDir, "plugins");
  const server = mcpServer(request);
  return [
    serverEdit(
      path.join(configDir, "opencode.json"),
      "mcp",
      // `timeout`: opencode's bound in ms on each request to the server, the first tool listing
      // included (default 5000). test/integration/opencode.test.ts once saw a session without
      // memdir's tools on a heavily loaded machine, where only the server's start is slow.
      { type: "local", command: [server.command, ...server.args], enabled: true, timeout: 30_000 },
      request,
    ),
    {
      path: path.join(pluginDir, "memdir.js"),
      format: "file",
      text: request.remove ? null : opencodePluginSource(words(request.command)),
      marker: OPENCODE_PLUGIN_MARKER,
    },
  ];
}

function cursor(request: SetupRequest): FileEdit[] {
  const dir = path.join(request.scope === "project" ? request.projectRoot : request.home, ".cursor");
  const hooks = path.join(dir, "hooks.json");
  const entries = CURSOR_EVENTS.map(([event, memdirEvent]) => ({
    event,
    entry: { command: hookCommand(request, memdirEvent) },
  }));
  return [
    hooksEdit(hooks, entries, request, (doc) => {
      if (request.remove)
        return doc.hooks === undefined && doc.version === 1 && Object.keys(doc).length === 1 ? {} : doc;
      return doc.version === undefined ? { version: 1, ...doc } : doc;
    }),
    serverEdit(path.join(dir, "mcp.json"), "mcpServers", mcpServer(request), request),
  ];
}

/**
 * Cline: the MCP server only, in the settings file every Cline app shares
 * (`~/.cline/data/settings/cline_mcp_settings.json`, moved by `CLINE_DIR` or `CLINE_DATA_DIR` as
 * Cline moves it; Cline versions before that shared folder keep theirs in the editor's storage).
 * Cline's hooks are executables named after the event that read `{taskId, hookName,
 * userPromptSubmit: {prompt}, …}` and answer `{cancel, contextModification}` — not the wire
 * format `memdir hook` speaks — so no hooks.
 */
function cline(request: SetupRequest): FileEdit[] {
  if (request.scope === "project")
    throw new SetupUsageError(
      "memdir: setup: cline keeps its MCP servers per user only; run it without --project",
    );
  const data =
    request.clineDataDir ?? path.join(request.clineDir ?? path.join(request.home, ".cline"), "data");
  const file = path.join(data, "settings", "cline_mcp_settings.json");
  // `timeout`: Cline's per-server request timeout in seconds (its schema: at least 1, default 60),
  // written out so a user who needs a longer one sees where it goes.
  return [serverEdit(file, "mcpServers", { ...mcpServer(request), disabled: false, timeout: 60 }, request)];
}

/**
 * Qwen Code: `settings.json` in `~/.qwen` (`QWEN_HOME` in its place, as Qwen Code reads it) or the
 * repository's `.qwen/`, with Claude Code's hook shape and event names (SessionStart,
 * UserPromptSubmit, Stop; timeouts in seconds) and the MCP server under `mcpServers`.
 * `--recommended` turns Qwen's managed auto memory off (`memory.enableManagedAutoMemory`, which
 * also stops its dream: Qwen Code's settings schema).
 */
function qwen(request: SetupRequest): FileEdit[] {
  const dir =
    request.scope === "project"
      ? path.join(request.projectRoot, ".qwen")
      : (request.qwenHome ?? path.join(request.home, ".qwen"));
  const settings = path.join(dir, "settings.json");
  const autoMemory = (doc: JsonObject): JsonObject => {
    if (!request.recommended) return doc;
    const memory =
      typeof doc.memory === "object" && doc.memory !== null && !Array.isArray(doc.memory)
        ? (doc.memory as JsonObject)
        : {};
    if (request.remove) {
      if (memory.enableManagedAutoMemory !== false) return doc;
      const { enableManagedAutoMemory: _ours, ...rest } = memory;
      return withKey(doc, "memory", Object.keys(rest).length > 0 ? rest : undefined);
    }
    return withKey(doc, "memory", { ...memory, enableManagedAutoMemory: false });
  };
  return [
    hooksEdit(settings, groupHooks(request, CLAUDE_NAMES_WITHOUT_FILE_HOOK, "s"), request, (doc) =>
      autoMemory(withServer(doc, "mcpServers", request.remove ? null : mcpServer(request), settings)),
    ),
  ];
}

/**
 * Copilot CLI: memdir's own hooks file `~/.copilot/hooks/memdir.json` (`COPILOT_HOME` in place of
 * `~/.copilot`) in Copilot's format — `{version: 1, hooks: {Event: [{type: "command", bash,
 * timeoutSec}]}}` — and the MCP server in `mcp-config.json`. Each hook command carries `--host
 * copilot`: Copilot reads a top-level `additionalContext`, not `hookSpecificOutput`, and its
 * payloads look like Claude Code's, so the command line says whose answer to give.
 */
function copilot(request: SetupRequest): FileEdit[] {
  if (request.scope === "project")
    throw new SetupUsageError(
      "memdir: setup: copilot is set up per user (~/.copilot); run it without --project",
    );
  const dir = request.copilotHome ?? path.join(request.home, ".copilot");
  const hooks = path.join(dir, "hooks", "memdir.json");
  const entries = CLAUDE_NAMES_WITHOUT_FILE_HOOK.map(([event, memdirEvent]) => ({
    event,
    entry: { type: "command", bash: hookCommand(request, memdirEvent, "copilot"), timeoutSec: 10 },
  }));
  const server = mcpServer(request);
  return [
    hooksEdit(hooks, entries, request, (doc) => {
      if (request.remove)
        return doc.hooks === undefined && doc.version === 1 && Object.keys(doc).length === 1 ? {} : doc;
      return doc.version === undefined ? { version: 1, ...doc } : doc;
    }),
    serverEdit(
      path.join(dir, "mcp-config.json"),
      "mcpServers",
      { type: "local", ...server, tools: ["*"] },
      request,
    ),
  ];
}

/** The files `memdir setup <agent>` changes, in the order it reports them. */
export function setupEdits(request: SetupRequest): FileEdit[] {
  switch (request.agent) {
    case "claude-code":
      return claudeCode(request);
    case "codex":
      return codex(request);
    case "gemini":
      return gemini(request);
    case "qwen":
      return qwen(request);
    case "copilot":
      return copilot(request);
    case "opencode":
      return opencode(request);
    case "cursor":
      return cursor(request);
    case "cline":
      return cline(request);
  }
}
