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
 * (`~/.claude/settings.json`) > `~/.claude`. Project settings are never consulted (SPEC §1).
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
  const bare = options.bare ?? envFlag(env.MEMDIR_BARE) ?? false;

  let autoMemory = true;
  let autoMemoryOffReason: string | null = null;
  const envDisable = envFlag(env.CLAUDE_CODE_DISABLE_AUTO_MEMORY) ?? envFlag(env.MEMDIR_DISABLE);
  const settingEnabled = projectSettings.autoMemoryEnabled ?? userSettings.autoMemoryEnabled;
  if (envDisable === true) {
    autoMemory = false;
    autoMemoryOffReason = env.CLAUDE_CODE_DISABLE_AUTO_MEMORY
      ? "CLAUDE_CODE_DISABLE_AUTO_MEMORY=1"
      : "MEMDIR_DISABLE=1";
  } else if (envDisable === false) {
    autoMemory = true;
  } else if (bare) {
    autoMemory = false;
    autoMemoryOffReason = "bare mode";
  } else if (settingEnabled === false) {
    autoMemory = false;
    autoMemoryOffReason =
      projectSettings.autoMemoryEnabled === false
        ? "autoMemoryEnabled: false in project settings"
        : "autoMemoryEnabled: false in user settings";
  }
  if (envDisable === false && bare) {
    // An explicit `=0` forces memory on even in bare mode: the user asked for it by name.
    autoMemoryOffReason = null;
  }

  const dreamSettings = { ...userSettings.autoDream, ...projectSettings.autoDream };
  const autoDream = {
    enabled:
      autoMemory &&
      !bare &&
      (envFlag(env.MEMDIR_AUTO_DREAM) ??
        projectSettings.autoDreamEnabled ??
        userSettings.autoDreamEnabled ??
        true),
    minHours: typeof dreamSettings.minHours === "number" ? dreamSettings.minHours : 24,
    minSessions: typeof dreamSettings.minSessions === "number" ? dreamSettings.minSessions : 5,
    mode: dreamSettings.mode === "propose" ? ("propose" as const) : ("apply" as const),
  };
  const teamMemory =
    envFlag(env.MEMDIR_TEAM_MEMORY) ??
    projectSettings.teamMemoryEnabled ??
    userSettings.teamMemoryEnabled ??
    false;

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
