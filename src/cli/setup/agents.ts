import fs from "node:fs";
import path from "node:path";
import { type HookTrust, memdirHookTrust, withHookTrust } from "./codex-hook-trust.ts";
import { type HookEntry, type JsonObject, withAllowed, withHooks, withServer } from "./json-config.ts";
import { OPENCODE_PLUGIN_MARKER, opencodePluginSource } from "./opencode-plugin.ts";
import { type RecommendedSetting, withValueAt } from "./prior-values.ts";
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

/** The MCP server as most agents write it: `{command, args}` (`["mcp"]` after the prefix's own words). */
function mcpServer(request: SetupRequest): { command: string; args: string[] } {
  const [command = "memdir", ...rest] = request.command;
  return { command, args: [...rest, "mcp"] };
}

function hookCommand(request: SetupRequest, event: string, host?: string): string {
  return `${request.commandLine} hook ${event}${host === undefined ? "" : ` --host ${host}`}`;
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
  recommended?: RecommendedSetting[],
): FileEdit {
  return {
    path: file,
    format: "json",
    edit: (doc) => {
      const hooked = withHooks(doc, request.remove ? [] : entries, file);
      const next = extra ? extra(hooked) : hooked;
      if (!recommended || !request.recommended || request.remove) return next;
      return recommended.reduce(
        (current, setting) => withValueAt(current, setting.path, setting.value),
        next,
      );
    },
    ...(recommended ? { recommended } : {}),
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
  // and which wins over the setting for memdir. `--remove` puts back what they held before
  // (prior-values.ts).
  const recommended: RecommendedSetting[] = [
    { path: ["autoMemoryEnabled"], value: false },
    { path: ["env", "MEMDIR_DISABLE"], value: "0" },
  ];
  return [
    hooksEdit(settings, groupHooks(request, CLAUDE_EVENTS, "s"), request, undefined, recommended),
    serverEdit(mcp, "mcpServers", { type: "stdio", ...mcpServer(request) }, request),
  ];
}

/**
 * Codex's MCP server gets `required = true`: Codex builds the first turn's tools after about a
 * second whether an optional server answered or not, and on a loaded machine any stdio server
 * takes longer (bench/mcp-startup.ts: spawn → tools/list 2.1 s median at load 22 on 2 cores, a
 * minimal SDK server the same; docs/integrations.md#codex-cli). test/integration/codex.test.ts
 * checks the tools are on the first request.
 * The price: when memdir cannot start, Codex stops with "required MCP servers failed to
 * initialize" instead of running without memory. `startup_timeout_sec` gives that start room on
 * a slow machine. Both are written only when absent, so a user's own value stays.
 */
const CODEX_SERVER_DEFAULTS: Array<[string, boolean | number]> = [
  ["required", true],
  ["startup_timeout_sec", 30],
];

/**
 * Codex: hooks in `hooks.json`, the MCP server in `config.toml`, both in `CODEX_HOME` (`~/.codex`)
 * or the repository's `.codex/`. In user scope the same config.toml also gets a trust entry per
 * memdir hook (codex-hook-trust.ts): Codex reads hook trust from the user's config only, so hooks
 * in a project's `.codex/` must be trusted in Codex's /hooks.
 */
function codex(request: SetupRequest): FileEdit[] {
  const user = request.scope === "user";
  const dir = user ? codexHomeAsCodexSees(request) : path.join(request.projectRoot, ".codex");
  const config = path.join(dir, "config.toml");
  const hooksFile = path.join(dir, "hooks.json");
  const server = { ...mcpServer(request), defaults: CODEX_SERVER_DEFAULTS };
  // The hooks edit runs first (planEdits keeps the order): the trust entries follow what it wrote.
  let trust: { wanted: HookTrust[]; dropped: HookTrust[] } = { wanted: [], dropped: [] };
  return [
    {
      path: hooksFile,
      format: "json",
      edit: (doc) => {
        const next = withHooks(doc, request.remove ? [] : groupHooks(request, CODEX_EVENTS, "s"), hooksFile);
        if (user)
          trust = { wanted: memdirHookTrust(hooksFile, next), dropped: memdirHookTrust(hooksFile, doc) };
        return next;
      },
    },
    {
      path: config,
      format: "toml",
      edit: (text) =>
        withHookTrust(
          withServerTable(text, request.remove ? null : server, config),
          trust.wanted,
          trust.dropped,
          config,
        ),
    },
  ];
}

/**
 * The folder Codex reads its user config from: `CODEX_HOME` with its links resolved (Codex
 * canonicalizes it, and the trust keys carry the path), or `~/.codex` as `HOME` spells it.
 */
function codexHomeAsCodexSees(request: SetupRequest): string {
  if (!request.codexHome) return path.join(request.home, ".codex");
  // Not there yet: the nearest folder that is, resolved, and the rest setup creates.
  const missing: string[] = [];
  for (let folder = path.resolve(request.codexHome); ; folder = path.dirname(folder)) {
    try {
      return path.join(fs.realpathSync(folder), ...missing);
    } catch {
      if (path.dirname(folder) === folder) return path.resolve(request.codexHome);
      missing.unshift(path.basename(folder));
    }
  }
}

/**
 * The memdir tools Gemini CLI and Qwen Code may run without asking: those that read, and
 * `memory_save`, which only adds a memory (a save that names an existing file is refused). In a
 * headless run (`gemini -p`, `qwen -p`) both turn every "ask" into "deny" — Gemini CLI even
 * leaves denied tools out of the model's request — so without this rule memdir's tools do
 * nothing there (test/integration/gemini.test.ts, qwen.test.ts). `memory_update`, `memory_delete`
 * and the inbox's accept and reject still ask.
 */
const ALLOWED_MEMORY_TOOLS = [
  "memory_recall",
  "memory_save",
  "memory_list",
  "memory_read",
  "memory_context",
  "memory_inbox_list",
];

/** memdir's own policy file for Gemini CLI (`~/.gemini/policies/memdir.toml`), whole. */
function geminiPolicy(): string {
  const names = ALLOWED_MEMORY_TOOLS.map((tool) => `"mcp_memdir_${tool}"`).join(", ");
  return [
    "# Written by `memdir setup gemini` (`memdir setup gemini --remove` empties it): memdir's MCP tools",
    "# that read memory or add one run without asking, headless runs (gemini -p) included.",
    "[[rule]]",
    'mcpName = "memdir"',
    `toolName = [${names}]`,
    'decision = "allow"',
    "priority = 100",
    "",
  ].join("\n");
}

function gemini(request: SetupRequest): FileEdit[] {
  const base = request.scope === "project" ? request.projectRoot : (request.geminiCliHome ?? request.home);
  const settings = path.join(base, ".gemini", "settings.json");
  return [
    hooksEdit(settings, groupHooks(request, GEMINI_EVENTS, "ms"), request, (doc) =>
      withServer(doc, "mcpServers", request.remove ? null : mcpServer(request), settings),
    ),
    {
      path: path.join(base, ".gemini", "policies", "memdir.toml"),
      format: "toml",
      edit: () => (request.remove ? "" : geminiPolicy()),
    },
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
      text: request.remove ? null : opencodePluginSource(request.command),
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
 * `permissions.allow` lists memdir's reading tools and `memory_save` (ALLOWED_MEMORY_TOOLS):
 * Qwen Code defers MCP tools (the model reaches them through `tool_search` and `tool_call`) and
 * denies what would ask in a headless run. `--recommended` turns Qwen's managed auto memory off (`memory.enableManagedAutoMemory`, which
 * also stops its dream: Qwen Code's settings schema).
 */
function qwen(request: SetupRequest): FileEdit[] {
  const dir =
    request.scope === "project"
      ? path.join(request.projectRoot, ".qwen")
      : (request.qwenHome ?? path.join(request.home, ".qwen"));
  const settings = path.join(dir, "settings.json");
  const recommended: RecommendedSetting[] = [{ path: ["memory", "enableManagedAutoMemory"], value: false }];
  return [
    hooksEdit(
      settings,
      groupHooks(request, CLAUDE_NAMES_WITHOUT_FILE_HOOK, "s"),
      request,
      (doc) =>
        withAllowed(
          withServer(doc, "mcpServers", request.remove ? null : mcpServer(request), settings),
          "permissions",
          ALLOWED_MEMORY_TOOLS.map((tool) => `mcp__memdir__${tool}`),
          request.remove,
          settings,
        ),
      recommended,
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
