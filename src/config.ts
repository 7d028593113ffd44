import fs from "node:fs";
import os from "node:os";
import path from "node:path";

/**
 * Settings memdir reads from JSON files. User settings live in `<root>/settings.json`;
 * project settings in `<project>/.claude/settings.json` and `.claude/settings.local.json`.
 */
export interface MemdirSettings {
  autoMemoryEnabled?: boolean;
  /** Memory root. Honoured only from user settings: a hostile repo must not aim writes elsewhere. */
  autoMemoryDirectory?: string;
  autoDreamEnabled?: boolean;
  autoDream?: { minHours?: number; minSessions?: number; mode?: "apply" | "propose" };
  teamMemoryEnabled?: boolean;
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
  autoDream: { enabled: boolean; minHours: number; minSessions: number; mode: "apply" | "propose" };
  teamMemory: boolean;
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
    const parsed: unknown = JSON.parse(fs.readFileSync(file, "utf8"));
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

/**
 * The memory root: option > `MEMDIR_ROOT` > `autoMemoryDirectory` in the user settings file
 * (`~/.claude/settings.json`) > `~/.claude`. Project settings are never consulted (docs/design.md#locating-memory).
 */
export function resolveRoot(options: { root?: string; env?: NodeJS.ProcessEnv; home?: string } = {}): string {
  const env = options.env ?? process.env;
  const home = options.home ?? env.HOME ?? os.homedir();
  if (options.root) return path.resolve(expandHome(options.root, home));
  if (env.MEMDIR_ROOT) return path.resolve(expandHome(env.MEMDIR_ROOT, home));
  const defaultRoot = path.join(home, ".claude");
  const fromSettings = readSettingsFile(path.join(defaultRoot, "settings.json")).autoMemoryDirectory;
  if (typeof fromSettings === "string" && fromSettings.trim() !== "")
    return path.resolve(expandHome(fromSettings.trim(), home));
  return defaultRoot;
}

/**
 * Resolves every setting in one place. Environment beats settings; project settings beat
 * user settings, except for the memory location, which only options, env and user settings set.
 */
export function resolveConfig(options: ConfigOptions = {}): ResolvedConfig {
  const env = options.env ?? process.env;
  const home = options.home ?? env.HOME ?? os.homedir();
  const cwd = path.resolve(options.cwd ?? process.cwd());
  const root = resolveRoot({ root: options.root, env, home });
  const userSettings = {
    ...readSettingsFile(path.join(home, ".claude", "settings.json")),
    ...(root !== path.join(home, ".claude") ? readSettingsFile(path.join(root, "settings.json")) : {}),
  };
  const projectRoot = options.projectRoot ?? cwd;
  const projectSettings = {
    ...readSettingsFile(path.join(projectRoot, ".claude", "settings.json")),
    ...readSettingsFile(path.join(projectRoot, ".claude", "settings.local.json")),
  };
  const bare = options.bare ?? envFlag(env.MEMDIR_BARE) ?? envFlag(env.CLAUDE_CODE_SIMPLE) ?? false;
  const { autoMemory, autoMemoryOffReason } = resolveAutoMemory({ env, bare, userSettings, projectSettings });

  const dreamSettings = { ...userSettings.autoDream, ...projectSettings.autoDream };
  const autoDream = {
    enabled:
      autoMemory &&
      !bare &&
      (envFlag(env.MEMDIR_AUTO_DREAM) ??
        booleanSetting(projectSettings.autoDreamEnabled) ??
        booleanSetting(userSettings.autoDreamEnabled) ??
        true),
    minHours: typeof dreamSettings.minHours === "number" ? dreamSettings.minHours : 24,
    minSessions: typeof dreamSettings.minSessions === "number" ? dreamSettings.minSessions : 5,
    mode: dreamSettings.mode === "propose" ? ("propose" as const) : ("apply" as const),
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
    autoDream,
    teamMemory,
    model: resolveModelConfig(env, options),
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

/**
 * Whether auto memory is on, and why not when it is off. First match wins:
 * 1. `CLAUDE_CODE_DISABLE_AUTO_MEMORY` or `MEMDIR_DISABLE` truthy (`1`, `true`, `yes`, `on`) → off.
 *    Either one turning it off is enough: off is the safe answer when the two disagree.
 * 2. Either variable falsy (`0`, `false`, `no`, `off`) → on, even in bare mode or against settings.
 * 3. Bare mode → off.
 * 4. `autoMemoryEnabled` in project settings (`.claude/settings.local.json` over `.claude/settings.json`).
 * 5. `autoMemoryEnabled` in user settings.
 * 6. On.
 */
export function resolveAutoMemory(input: {
  env: NodeJS.ProcessEnv;
  bare: boolean;
  userSettings: MemdirSettings;
  projectSettings: MemdirSettings;
}): { autoMemory: boolean; autoMemoryOffReason: string | null } {
  const switches = AUTO_MEMORY_ENV_SWITCHES.map((name) => ({
    name,
    value: input.env[name],
    flag: envFlag(input.env[name]),
  }));
  const disabledBy = switches.find((entry) => entry.flag === true);
  if (disabledBy) return { autoMemory: false, autoMemoryOffReason: `${disabledBy.name}=${disabledBy.value}` };
  if (switches.some((entry) => entry.flag === false)) return { autoMemory: true, autoMemoryOffReason: null };
  if (input.bare) return { autoMemory: false, autoMemoryOffReason: "bare mode" };
  const fromProject = booleanSetting(input.projectSettings.autoMemoryEnabled);
  if (fromProject !== undefined) {
    return fromProject
      ? { autoMemory: true, autoMemoryOffReason: null }
      : { autoMemory: false, autoMemoryOffReason: "autoMemoryEnabled: false in project settings" };
  }
  if (booleanSetting(input.userSettings.autoMemoryEnabled) === false) {
    return { autoMemory: false, autoMemoryOffReason: "autoMemoryEnabled: false in user settings" };
  }
  return { autoMemory: true, autoMemoryOffReason: null };
}

/**
 * The model provider: `--provider` / `MEMDIR_PROVIDER`, else whichever API key is set.
 * No provider means offline: lexical recall, explicit "remember …" only.
 */
export function resolveModelConfig(
  env: NodeJS.ProcessEnv,
  options: { provider?: string; model?: string; baseURL?: string } = {},
): ModelConfig {
  const requested = (options.provider ?? env.MEMDIR_PROVIDER ?? "").trim().toLowerCase();
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
  const model = options.model ?? env.MEMDIR_MODEL ?? undefined;
  const selectorModel = env.MEMDIR_SELECTOR_MODEL ?? model;
  return { provider, apiKey, baseURL, model, selectorModel };
}

/** Set to `1` to neither read nor write cache files (benchmarks of cold behaviour, tests). */
export const NO_CACHE_ENV = "MEMDIR_NO_CACHE";
/** Set to `1` to never watch memory folders: every scan lists and stats the whole tree. */
export const NO_WATCH_ENV = "MEMDIR_NO_WATCH";
/** Set to anything to print failed background cache saves (and other diagnostics) to stderr. */
export const DEBUG_ENV = "MEMDIR_DEBUG";

/**
 * The process's environment. memdir reads environment variables only in this file; library code
 * takes an `env` option and falls back to this, so a caller (a test, an embedding host) decides.
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
export function debugEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  return Boolean(env[DEBUG_ENV]);
}
