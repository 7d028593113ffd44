import { type DreamMode, firstMemoryMode, type MemoryMode, positiveOr } from "./types.ts";

// Node's modules are taken, not imported: `import("memdir")` loads this file, and the ES module
// facade of `node:fs` alone costs ~8% of a bare `node -e 0` (docs/design.md#lazy-entry).
const path = process.getBuiltinModule("node:path");
const homedir = (): string => process.getBuiltinModule("node:os").homedir();

/**
 * Settings memdir reads from JSON files. User settings live in `<root>/settings.json`;
 * project settings in `<project>/.claude/settings.json` and `.claude/settings.local.json`.
 */
export interface MemdirSettings {
  autoMemoryEnabled?: boolean;
  /**
   * Claude Code's whole memory directory, shared by every project (not a root). Honoured only
   * from user settings: a hostile repo must not aim writes elsewhere.
   */
  autoMemoryDirectory?: string;
  autoDreamEnabled?: boolean;
  autoDream?: { minHours?: number; minSessions?: number; mode?: DreamMode };
  teamMemoryEnabled?: boolean;
  /**
   * memdir's own switch (docs/design.md#turning-memory-off): beats the host's `autoMemoryEnabled`
   * and `CLAUDE_CODE_DISABLE_AUTO_MEMORY`, so turning Claude Code's memory off keeps memdir on.
   */
  memdirEnabled?: boolean;
  /** memdir's own model choice; a hook calls a model only when memdir is configured for one. */
  memdirProvider?: string;
  memdirModel?: string;
  memoryMode?: MemoryMode; // auto | review | manual (docs/design.md#memory-modes)
  inboxExpiryDays?: number; // days an inbox proposal waits before it expires (default 30)
}

export type Provider = "anthropic" | "openai";

export interface ModelConfig {
  provider: Provider | null;
  apiKey: string | undefined;
  baseURL: string | undefined;
  /** The agent's model. */
  model: string | undefined;
  /** Model for side queries (selection); defaults to `model`. */
  selectorModel: string | undefined;
  /**
   * What configured memdir itself for a model (`MEMDIR_PROVIDER=anthropic`, `--model`,
   * `memdirModel in user settings`), or null when the provider only follows an API key found in
   * the environment. Hooks call a model only with this set (docs/design.md#model-use-in-hooks).
   */
  optIn: string | null;
  /** A provider asked for that memdir does not know (`MEMDIR_PROVIDER=antropic`), with where it came from. */
  unknownProvider?: string;
}

/** Everything memdir decides from options, environment and settings, resolved in one place. */
export interface ResolvedConfig {
  home: string;
  /** Memory root (`~/.claude` by default). */
  root: string;
  cwd: string;
  bare: boolean;
  autoMemory: boolean;
  /** Why auto memory is off (for `context` / `doctor`), or null when on. */
  autoMemoryOffReason: string | null;
  /**
   * Claude Code's own auto memory for this project, by its documented switches
   * (`CLAUDE_CODE_DISABLE_AUTO_MEMORY`, bare mode, `autoMemoryEnabled`), with the reason. When it
   * is on, memdir as a Claude Code hook adds recall only (docs/design.md#coexistence).
   */
  hostMemory: { on: boolean; reason: string };
  /**
   * memdir's memory by memdir's own switches alone (`MEMDIR_DISABLE`, `memdirEnabled`, bare mode),
   * the host's left out: what a hook goes by, since the host's switches then pick the hook's mode
   * instead of turning memdir off (docs/design.md#coexistence).
   */
  ownMemory: { on: boolean; reason: string | null };
  /** Claude Code's config dir: `CLAUDE_CONFIG_DIR`, else `~/.claude`. */
  claudeConfigDir: string;
  autoDream: { enabled: boolean; minHours: number; minSessions: number; mode: DreamMode };
  teamMemory: boolean;
  memoryMode: MemoryMode; // env `MEMDIR_MEMORY_MODE`, then project, then user settings, else `auto`
  inboxExpiryDays: number;
  model: ModelConfig;
  userSettings: MemdirSettings;
  projectSettings: MemdirSettings;
}

export interface ConfigOptions {
  cwd?: string;
  root?: string;
  env?: NodeJS.ProcessEnv;
  home?: string;
  bare?: boolean;
  /** Project root for project settings; defaults to `cwd`. */
  projectRoot?: string;
  provider?: string;
  model?: string;
  baseURL?: string;
}

/** Reads a JSON settings file; a missing or broken file counts as empty (never throws). */
export function readSettingsFile(file: string): MemdirSettings {
  try {
    const parsed: unknown = JSON.parse(process.getBuiltinModule("node:fs").readFileSync(file, "utf8"));
    return parsed && typeof parsed === "object" && !Array.isArray(parsed) ? (parsed as MemdirSettings) : {};
  } catch {
    return {};
  }
}

function envFlag(value: string | undefined): boolean | undefined {
  if (value === undefined || value === "") return undefined;
  const v = value.trim().toLowerCase();
  if (["1", "true", "yes", "on"].includes(v)) return true;
  if (["0", "false", "no", "off"].includes(v)) return false;
  return undefined;
}

function expandHome(p: string, home: string): string {
  if (p === "~") return home;
  if (p.startsWith("~/")) return path.join(home, p.slice(2));
  return p;
}

/** Claude Code's config dir: `CLAUDE_CONFIG_DIR` when set, else `~/.claude`. */
export function claudeConfigDir(env: NodeJS.ProcessEnv, home: string): string {
  const fromEnv = env.CLAUDE_CONFIG_DIR?.trim();
  return fromEnv ? path.resolve(expandHome(fromEnv, home)) : path.join(home, ".claude");
}

/**
 * The memory root: option > `MEMDIR_ROOT` > `CLAUDE_CONFIG_DIR` > `~/.claude`
 * (docs/design.md#locating-memory).
 */
export function resolveRoot(options: { root?: string; env?: NodeJS.ProcessEnv; home?: string } = {}): string {
  const env = options.env ?? process.env;
  const home = resolveHome(env, options.home);
  if (options.root) return path.resolve(expandHome(options.root, home));
  if (env.MEMDIR_ROOT) return path.resolve(expandHome(env.MEMDIR_ROOT, home));
  return claudeConfigDir(env, home);
}

/**
 * `autoMemoryDirectory` in the user settings file of Claude Code's config dir `configDir`: the
 * memory directory itself, which Claude Code uses for every project instead of
 * `projects/<project>/memory` (docs/design.md#locating-memory); null when unset or when Claude
 * Code would ignore it. Checked as Claude Code checks it, so that both use the same folder or
 * both the default: `~/` is expanded, trailing separators dropped, and a relative path, a
 * filesystem root, a path shorter than 3 characters, `~/` or `~/..` alone, a UNC path or a NUL
 * is ignored. Read from the user settings only: never a project's own settings (a hostile repo
 * must not aim writes elsewhere), and not Claude Code's other trusted sources either (local,
 * `--settings` and managed settings), where a value there makes the two disagree.
 */
export function autoMemoryDirectorySetting(configDir: string, home: string): string | null {
  const raw = readSettingsFile(path.join(configDir, "settings.json")).autoMemoryDirectory;
  if (typeof raw !== "string" || raw === "") return null;
  let candidate = raw;
  if (candidate.startsWith("~/") || candidate.startsWith("~\\")) {
    const rest = candidate.slice(2);
    const restNormalized = path.normalize(rest || ".");
    if (restNormalized === "." || restNormalized === "..") return null;
    candidate = path.join(home, rest);
  }
  const normalized = path.normalize(candidate).replace(/[/\\]+$/, "");
  if (
    !path.isAbsolute(normalized) ||
    normalized.length < 3 ||
    /^[A-Za-z]:$/.test(normalized) ||
    normalized.startsWith("\\\\") ||
    normalized.startsWith("//") ||
    normalized.includes("\0")
  )
    return null;
  return normalized.normalize("NFC");
}

/**
 * The user's home folder: `home` when given, else `HOME` in `env`, else the account's
 * (`os.homedir()`). Library code hands in `env` (and `home` when it has one); this is where the
 * account's is looked up.
 */
export function resolveHome(env: NodeJS.ProcessEnv, home?: string): string {
  return home ?? env.HOME ?? homedir();
}

/**
 * The project folder's name under `<root>/projects/` when `CLAUDE_CODE_PROJECT_DIR_NAME` names
 * one (Claude Code then uses it instead of the sanitized project path), else null. Only a plain
 * folder name counts: a value with a separator, `..` or NUL is ignored.
 */
export function projectDirNameFromEnv(env: NodeJS.ProcessEnv = process.env): string | null {
  const name = env.CLAUDE_CODE_PROJECT_DIR_NAME?.trim();
  if (!name || name === "." || name === ".." || /[/\\\0]/.test(name)) return null;
  return name;
}

/**
 * Resolves every setting in one place. Environment beats settings; project settings beat
 * user settings, except for the memory location, which only options, env and user settings set.
 */
export function resolveConfig(options: ConfigOptions = {}): ResolvedConfig {
  const env = options.env ?? process.env;
  const home = resolveHome(env, options.home);
  const cwd = path.resolve(options.cwd ?? process.cwd());
  const root = resolveRoot({ root: options.root, env, home });
  const configDir = claudeConfigDir(env, home);
  const userSettings = {
    ...readSettingsFile(path.join(configDir, "settings.json")),
    ...(root !== configDir ? readSettingsFile(path.join(root, "settings.json")) : {}),
  };
  const projectRoot = options.projectRoot ?? cwd;
  const projectSettings = {
    ...readSettingsFile(path.join(projectRoot, ".claude", "settings.json")),
    ...readSettingsFile(path.join(projectRoot, ".claude", "settings.local.json")),
  };
  const bare = options.bare ?? envFlag(env.MEMDIR_BARE) ?? envFlag(env.CLAUDE_CODE_SIMPLE) ?? false;
  const { autoMemory, autoMemoryOffReason } = resolveAutoMemory({ env, bare, userSettings, projectSettings });
  const hostMemory = resolveHostMemory({ env, userSettings, projectSettings });
  const ownMemory = resolveOwnMemory({ env, bare, userSettings, projectSettings });
  const memoryMode = firstMemoryMode(env.MEMDIR_MEMORY_MODE, projectSettings, userSettings);
  const dreamSettings = { ...userSettings.autoDream, ...projectSettings.autoDream };
  const autoDream = {
    enabled:
      memoryMode !== "manual" &&
      autoMemory &&
      !bare &&
      (envFlag(env.MEMDIR_AUTO_DREAM) ??
        booleanSetting(projectSettings.autoDreamEnabled) ??
        booleanSetting(userSettings.autoDreamEnabled) ??
        true),
    minHours: typeof dreamSettings.minHours === "number" ? dreamSettings.minHours : 24,
    minSessions: typeof dreamSettings.minSessions === "number" ? dreamSettings.minSessions : 5,
    mode: (memoryMode !== "auto" || dreamSettings.mode === "propose" ? "propose" : "apply") as DreamMode,
  };
  const teamMemory =
    autoMemory &&
    (envFlag(env.MEMDIR_TEAM_MEMORY) ??
      booleanSetting(projectSettings.teamMemoryEnabled) ??
      booleanSetting(userSettings.teamMemoryEnabled) ??
      false);

  return {
    home,
    root,
    cwd,
    bare,
    autoMemory,
    autoMemoryOffReason,
    hostMemory,
    ownMemory,
    claudeConfigDir: configDir,
    autoDream,
    teamMemory,
    memoryMode,
    inboxExpiryDays: positiveOr(30, projectSettings.inboxExpiryDays, userSettings.inboxExpiryDays),
    model: resolveModelConfig(env, options, { user: userSettings, project: projectSettings }),
    userSettings,
    projectSettings,
  };
}

/** Environment variables that switch auto memory: `=1` turns it off, `=0` forces it on (docs/design.md#turning-memory-off). */
export const AUTO_MEMORY_ENV_SWITCHES = ["CLAUDE_CODE_DISABLE_AUTO_MEMORY", "MEMDIR_DISABLE"] as const;

/** A settings value counts only when it is a real boolean; `"false"` or `0` in a JSON file is ignored. */
function booleanSetting(value: unknown): boolean | undefined {
  return typeof value === "boolean" ? value : undefined;
}

export type SwitchInput = { env: NodeJS.ProcessEnv; bare: boolean } & SettingsPair;
export type SettingsPair = { userSettings: MemdirSettings; projectSettings: MemdirSettings };

type AutoMemoryDecision = { autoMemory: boolean; autoMemoryOffReason: string | null };

function decided(on: boolean, reason: string): AutoMemoryDecision {
  return on
    ? { autoMemory: true, autoMemoryOffReason: null }
    : { autoMemory: false, autoMemoryOffReason: reason };
}

/** The first boolean of `key` in project settings, then user settings, with where it was found. */
function settingWithSource(
  key: "memdirEnabled" | "autoMemoryEnabled",
  input: SettingsPair,
): { value: boolean; where: string } | null {
  const fromProject = booleanSetting(input.projectSettings[key]);
  if (fromProject !== undefined) return { value: fromProject, where: "project settings" };
  const fromUser = booleanSetting(input.userSettings[key]);
  if (fromUser !== undefined) return { value: fromUser, where: "user settings" };
  return null;
}

/**
 * Whether memdir's auto memory is on, and why not when it is off. memdir's own switches come
 * first, so turning the host's memory off never turns memdir off with it. First match wins:
 * 1. `MEMDIR_DISABLE`: truthy (`1`, `true`, `yes`, `on`) → off; falsy (`0`, `false`, `no`, `off`) → on.
 * 2. `memdirEnabled` in project settings (`.claude/settings.local.json` over `.claude/settings.json`), then user settings.
 * 3. `CLAUDE_CODE_DISABLE_AUTO_MEMORY`: truthy → off; falsy → on, even in bare mode or against settings.
 * 4. Bare mode → off.
 * 5. `autoMemoryEnabled` in project settings, then user settings.
 * 6. On.
 */
export function resolveAutoMemory(input: SwitchInput): {
  autoMemory: boolean;
  autoMemoryOffReason: string | null;
} {
  const own = envFlag(input.env.MEMDIR_DISABLE);
  if (own !== undefined) return decided(!own, `MEMDIR_DISABLE=${input.env.MEMDIR_DISABLE}`);
  const ownSetting = settingWithSource("memdirEnabled", input);
  if (ownSetting) return decided(ownSetting.value, `memdirEnabled: false in ${ownSetting.where}`);
  const host = envFlag(input.env.CLAUDE_CODE_DISABLE_AUTO_MEMORY);
  if (host !== undefined)
    return decided(!host, `CLAUDE_CODE_DISABLE_AUTO_MEMORY=${input.env.CLAUDE_CODE_DISABLE_AUTO_MEMORY}`);
  if (input.bare) return decided(false, "bare mode");
  const hostSetting = settingWithSource("autoMemoryEnabled", input);
  if (hostSetting) return decided(hostSetting.value, `autoMemoryEnabled: false in ${hostSetting.where}`);
  return decided(true, "");
}

/** memdir's own switches only: `MEMDIR_DISABLE`, then `memdirEnabled`, then bare mode, else on. */
export function resolveOwnMemory(input: SwitchInput): { on: boolean; reason: string | null } {
  const own = envFlag(input.env.MEMDIR_DISABLE);
  if (own !== undefined)
    return { on: !own, reason: own ? `MEMDIR_DISABLE=${input.env.MEMDIR_DISABLE}` : null };
  const ownSetting = settingWithSource("memdirEnabled", input);
  if (ownSetting)
    return {
      on: ownSetting.value,
      reason: ownSetting.value ? null : `memdirEnabled: false in ${ownSetting.where}`,
    };
  return input.bare ? { on: false, reason: "bare mode" } : { on: true, reason: null };
}

/**
 * Whether Claude Code's own auto memory is on for this project, by Claude Code's documented
 * switches: `CLAUDE_CODE_DISABLE_AUTO_MEMORY` (`1` off, `0` on), bare mode (`CLAUDE_CODE_SIMPLE`),
 * `autoMemoryEnabled` in project then user settings, else on (its default). memdir's own switches
 * play no part here (docs/design.md#coexistence).
 */
export function resolveHostMemory(input: Omit<SwitchInput, "bare">): { on: boolean; reason: string } {
  const value = input.env.CLAUDE_CODE_DISABLE_AUTO_MEMORY;
  const flag = envFlag(value);
  if (flag !== undefined) return { on: !flag, reason: `CLAUDE_CODE_DISABLE_AUTO_MEMORY=${value}` };
  if (envFlag(input.env.CLAUDE_CODE_SIMPLE) === true)
    return { on: false, reason: "CLAUDE_CODE_SIMPLE=1 (bare mode)" };
  const setting = settingWithSource("autoMemoryEnabled", input);
  if (setting)
    return { on: setting.value, reason: `autoMemoryEnabled: ${setting.value} in ${setting.where}` };
  return { on: true, reason: "Claude Code's default (auto memory is on unless turned off)" };
}

/**
 * The model provider: `--provider` / `MEMDIR_PROVIDER` / `memdirProvider` in settings, else
 * whichever API key is set. No provider means offline: lexical recall, explicit "remember …" only.
 * `optIn` says whether memdir itself was configured for a model (a flag, a `MEMDIR_*` variable or
 * memdir's own setting) rather than only finding a key in the environment.
 */
export function resolveModelConfig(
  env: NodeJS.ProcessEnv,
  options: { provider?: string; model?: string; baseURL?: string } = {},
  settings: { user?: MemdirSettings; project?: MemdirSettings } = {},
): ModelConfig {
  const setting = (key: "memdirProvider" | "memdirModel"): { value: string; where: string } | null => {
    for (const [where, file] of [
      ["project settings", settings.project],
      ["user settings", settings.user],
    ] as const) {
      const value = file?.[key];
      if (typeof value === "string" && value.trim() !== "") return { value: value.trim(), where };
    }
    return null;
  };
  const providerSetting = setting("memdirProvider");
  const modelSetting = setting("memdirModel");
  const requested = (options.provider ?? env.MEMDIR_PROVIDER ?? providerSetting?.value ?? "")
    .trim()
    .toLowerCase();
  let provider: Provider | null = null;
  if (requested === "anthropic" || requested === "openai") provider = requested;
  else if (requested === "") {
    if (env.ANTHROPIC_API_KEY) provider = "anthropic";
    else if (env.OPENAI_API_KEY) provider = "openai";
  }
  const apiKey =
    provider === "anthropic" ? env.ANTHROPIC_API_KEY : provider === "openai" ? env.OPENAI_API_KEY : undefined;
  const baseURL =
    options.baseURL ??
    (provider === "anthropic"
      ? env.ANTHROPIC_BASE_URL
      : provider === "openai"
        ? env.OPENAI_BASE_URL
        : undefined);
  const model = options.model ?? env.MEMDIR_MODEL ?? modelSetting?.value ?? undefined;
  const selectorModel = env.MEMDIR_SELECTOR_MODEL ?? model;
  const optIn =
    (
      [
        [options.provider, "--provider"],
        [options.model, "--model"],
        [env.MEMDIR_PROVIDER, `MEMDIR_PROVIDER=${env.MEMDIR_PROVIDER}`],
        [env.MEMDIR_MODEL, `MEMDIR_MODEL=${env.MEMDIR_MODEL}`],
        [providerSetting, `memdirProvider in ${providerSetting?.where}`],
        [modelSetting, `memdirModel in ${modelSetting?.where}`],
      ] as const
    ).find(([set]) => set)?.[1] ?? null;
  const unknownProvider =
    requested !== "" && provider === null
      ? `"${requested}" (${options.provider !== undefined ? "--provider" : env.MEMDIR_PROVIDER !== undefined ? "MEMDIR_PROVIDER" : `memdirProvider in ${providerSetting?.where}`})`
      : undefined;
  return {
    provider,
    apiKey,
    baseURL,
    model,
    selectorModel,
    optIn,
    ...(unknownProvider ? { unknownProvider } : {}),
  };
}

/**
 * The model config a process started by a host (a hook, the MCP server) may use: `model` when
 * memdir itself was configured for one (`optIn`), else offline. A host's own key in the
 * environment (`ANTHROPIC_API_KEY` for the agent itself) never makes memdir call a model: model
 * use is opt-in (docs/design.md#model-use-in-hooks).
 *
 * @example
 * optedInModel(resolveModelConfig({ ANTHROPIC_API_KEY: "sk-…" })).provider // null
 */
export function optedInModel(model: ModelConfig): ModelConfig {
  return model.optIn === null ? { ...model, provider: null, apiKey: undefined } : model;
}

/** Set to `1` to neither read nor write cache files (benchmarks of cold behaviour, tests). */
export const NO_CACHE_ENV = "MEMDIR_NO_CACHE";
/** Set to `1` to never watch memory folders: every scan lists and stats the whole tree. */
export const NO_WATCH_ENV = "MEMDIR_NO_WATCH";
/** Set to anything to print failed background cache saves (and other diagnostics) to stderr. */
export const DEBUG_ENV = "MEMDIR_DEBUG";

/**
 * The process's environment, for what inherits it: git, run as a child of this process
 * (memdir/location/git.ts). Everything else below the entry layer takes an `env` argument that
 * the entry point (the CLI, the root's wrappers) hands in (test/process-state.test.ts).
 */
export function processEnv(): NodeJS.ProcessEnv {
  return process.env;
}

/** A switch that is off unless set to something other than empty, `0` or `false`. */
function switchedOn(value: string | undefined): boolean {
  return !(value === undefined || value === "" || value === "0" || value.toLowerCase() === "false");
}

/** True unless `MEMDIR_NO_CACHE` is set to a true value in `env`. */
export function persistedCacheEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  return !switchedOn(env[NO_CACHE_ENV]);
}

/** True when watching is allowed here: Linux, and not turned off by `MEMDIR_NO_WATCH` in `env`. */
export function watchingEnabled(
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
): boolean {
  return platform === "linux" && !switchedOn(env[NO_WATCH_ENV]);
}

/** True when `MEMDIR_DEBUG` is set (to anything) in `env`. */
export const debugEnabled = (env: NodeJS.ProcessEnv = process.env): boolean => Boolean(env[DEBUG_ENV]);
