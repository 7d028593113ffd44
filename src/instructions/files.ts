import fs from "node:fs/promises";
import path from "node:path";
import type { ResolvedConfig } from "../config.ts";
import { type IndexLimit, readIndex } from "../memdir/format/index-file.ts";
import { isInside } from "../memdir/fs/inside.ts";
import { resolveMemoryLocation } from "../memdir/location/paths.ts";
import { findSecrets } from "../memdir/trust/secrets.ts";
import { indexWithoutInstructions } from "../memdir/trust/withhold.ts";
import { stripHtmlComments } from "./comments.ts";
import { findImports, importCandidates, MAX_IMPORT_DEPTH } from "./imports.ts";

/**
 * Where an instruction file comes from, in load order (docs/design.md#instruction-files):
 * - `Managed`: the administrator's `CLAUDE.md` and `.claude/rules/**\/*.md` (`/etc/claude-code` on Linux)
 * - `User`: `~/.claude/CLAUDE.md` and `~/.claude/rules/**\/*.md`, for every project
 * - `Project`: `CLAUDE.md`, `.claude/CLAUDE.md`, `.claude/rules/**\/*.md`, `AGENTS.md` in each
 *   directory from the filesystem root down to cwd, and in each `--add-dir` directory
 * - `Local`: `CLAUDE.local.md` at the same places (private, not checked in)
 * - `AutoMem`: the auto-memory index `MEMORY.md` (never the memory files themselves)
 * - `TeamMem`: the team index `team/MEMORY.md` inside the memory directory
 *
 * A file pulled in by an `@path` import has the type of the file that imported it.
 */
export type InstructionFileType = "Managed" | "User" | "Project" | "Local" | "AutoMem" | "TeamMem";

/** One instruction file as it goes into the user context. */
export interface InstructionFile {
  /** Absolute path. */
  path: string;
  type: InstructionFileType;
  /** What the model sees: block-level HTML comments stripped, trimmed; for an index, capped with its warning. */
  content: string;
  /** UTF-8 bytes of `content`. */
  bytes: number;
  /** Absolute paths of the files this one imported with `@path` (each loaded as its own entry, right after it). */
  imports: string[];
  /** The file whose `@path` import loaded this one. */
  importedBy?: string;
  /** Imports not followed because they leave the repository directory that holds this file. */
  skippedImports?: string[];
  /** Index files only: whether the 200-line / 25,000-byte limits cut it, and which limit decided. */
  truncated?: false | IndexLimit;
}

export interface MemoryFilesOptions {
  /** Switches (auto memory, team memory) and defaults for `cwd`, `home`, `root`. */
  config: ResolvedConfig;
  cwd?: string;
  /** Home directory for `~/.claude/…` and `~/` imports. */
  home?: string;
  /** Memory root (`~/.claude` by default). */
  root?: string;
  /** Extra directories (`--add-dir`) whose instruction files load after cwd's. */
  addDirs?: string[];
  /** Managed-policy directory; defaults to {@link defaultManagedDir}. */
  managedDir?: string;
  /** Use this memory directory instead of resolving the project's (`--dir`). */
  memoryDir?: string;
  env?: NodeJS.ProcessEnv;
}

/** The administrator's directory for managed instructions on each platform. */
export function defaultManagedDir(platform: NodeJS.Platform = process.platform): string {
  if (platform === "darwin") return "/Library/Application Support/ClaudeCode";
  if (platform === "win32") return "C:\\Program Files\\ClaudeCode";
  return "/etc/claude-code";
}

interface LoadState {
  home: string;
  /** Real paths already loaded: stops import cycles and loads a file reachable twice only once. */
  seen: Set<string>;
}

/**
 * Every instruction file that exists, in the order of docs/design.md#instruction-files: managed, user, each directory from the
 * filesystem root down to cwd, each `addDirs` directory, then the auto-memory index and (with team
 * memory on) the team index. `@path` imports are loaded as entries right after their importer.
 * With auto memory off, no index is included. Reads fresh on every call; a session memoizes
 * through {@link createInstructionLoader}.
 *
 * @throws MemdirError("project-mismatch") when the project's memory directory belongs to another project.
 * @example
 * const files = await getMemoryFiles({ config: resolveConfig({ cwd }), cwd });
 * files.map((f) => `${f.type} ${f.path}`);
 */
export async function getMemoryFiles(options: MemoryFilesOptions): Promise<InstructionFile[]> {
  const { config } = options;
  const cwd = path.resolve(options.cwd ?? config.cwd);
  const home = options.home ?? config.home;
  const state: LoadState = { home, seen: new Set() };
  const files: InstructionFile[] = [];
  const load = async (filePath: string, type: InstructionFileType, importBase?: string) => {
    files.push(...(await loadInstructionFile(filePath, type, state, 0, undefined, importBase)));
  };

  const managedDir = options.managedDir ?? defaultManagedDir();
  await load(path.join(managedDir, "CLAUDE.md"), "Managed");
  for (const rule of await listRules(path.join(managedDir, ".claude", "rules"))) await load(rule, "Managed");

  const userDir = path.join(home, ".claude");
  await load(path.join(userDir, "CLAUDE.md"), "User");
  for (const rule of await listRules(path.join(userDir, "rules"))) await load(rule, "User");

  for (const directory of directoriesDownTo(cwd)) await loadDirectory(directory, load);
  for (const addDir of options.addDirs ?? []) await loadDirectory(path.resolve(cwd, addDir), load);

  if (config.autoMemory) {
    const memoryDir =
      options.memoryDir ??
      (
        await resolveMemoryLocation({
          cwd,
          root: options.root ?? config.root,
          home,
          // Without an environment handed in, none: no variable moves the memory dir.
          env: options.env ?? {},
        })
      ).memoryDir;
    const index = await loadIndexFile(memoryDir, "AutoMem");
    if (index) files.push(index);
    if (config.teamMemory) {
      const team = await loadIndexFile(path.join(memoryDir, "team"), "TeamMem");
      if (team) files.push(team);
    }
  }
  return files;
}

/** The instruction files of one directory, in order: CLAUDE.md, .claude/CLAUDE.md, rules, AGENTS.md, CLAUDE.local.md. */
async function loadDirectory(
  directory: string,
  load: (filePath: string, type: InstructionFileType, importBase?: string) => Promise<void>,
): Promise<void> {
  const base = await fs.realpath(directory).catch(() => directory);
  await load(path.join(directory, "CLAUDE.md"), "Project", base);
  await load(path.join(directory, ".claude", "CLAUDE.md"), "Project", base);
  for (const rule of await listRules(path.join(directory, ".claude", "rules")))
    await load(rule, "Project", base);
  await load(path.join(directory, "AGENTS.md"), "Project", base);
  await load(path.join(directory, "CLAUDE.local.md"), "Local", base);
}

/** `/`, `/a`, `/a/b` for cwd `/a/b`: the farthest first, so the instructions nearest cwd come last. */
export function directoriesDownTo(cwd: string): string[] {
  const directories: string[] = [];
  let current = path.resolve(cwd);
  for (;;) {
    directories.unshift(current);
    const parent = path.dirname(current);
    if (parent === current) return directories;
    current = parent;
  }
}

/** Every `*.md` under a rules folder, at any depth, sorted by relative path (code-point order, `/` separators). */
async function listRules(rulesDir: string): Promise<string[]> {
  let entries: string[];
  try {
    entries = (await fs.readdir(rulesDir, { recursive: true })).map(String);
  } catch {
    return [];
  }
  const relative = entries
    .filter((entry) => entry.toLowerCase().endsWith(".md"))
    .map((entry) => entry.split(path.sep).join("/"))
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return relative.map((entry) => path.join(rulesDir, entry));
}

/**
 * Loads one instruction file and, after it, the files its `@path` imports name (recursively, at
 * most {@link MAX_IMPORT_DEPTH} hops). Missing, unreadable, binary and already-loaded files yield
 * nothing, so a cycle stops where it would repeat.
 */
async function loadInstructionFile(
  filePath: string,
  type: InstructionFileType,
  state: LoadState,
  depth: number,
  importedBy?: string,
  importBase?: string,
): Promise<InstructionFile[]> {
  const text = await readTextFile(filePath);
  if (text === null) return [];
  const realPath = await fs.realpath(filePath);
  if (state.seen.has(realPath)) return [];
  state.seen.add(realPath);

  const content = stripHtmlComments(text.replace(/^\uFEFF/, "").replace(/\r\n/g, "\n")).trim();
  const file: InstructionFile = {
    path: filePath,
    type,
    content,
    bytes: Buffer.byteLength(content, "utf8"),
    imports: [],
    ...(importedBy ? { importedBy } : {}),
  };
  const loaded: InstructionFile[] = [file];
  if (depth >= MAX_IMPORT_DEPTH) return loaded;
  for (const token of findImports(content)) {
    for (const candidate of importCandidates(token, filePath, state.home)) {
      if ((await readTextFile(candidate)) === null) continue;
      // A hostile repository's `@~/.ssh/id_rsa` must not pull the user's secrets into the model's
      // context: an import that leaves the repository directory holding the importing file is
      // followed only when it is not in a credentials folder and holds no secret. Managed and user
      // files (the user's own) may import from anywhere.
      if (importBase && !(await safeOutsideImport(importBase, candidate))) {
        file.skippedImports = [...(file.skippedImports ?? []), candidate];
        break;
      }
      const imported = await loadInstructionFile(candidate, type, state, depth + 1, filePath, importBase);
      if (imported.length > 0) file.imports.push(candidate);
      loaded.push(...imported);
      break;
    }
  }
  return loaded;
}

const CREDENTIAL_FOLDERS = new Set([
  ".ssh",
  ".aws",
  ".gnupg",
  ".kube",
  ".docker",
  ".azure",
  "gcloud",
  ".password-store",
]);

async function safeOutsideImport(base: string, candidate: string): Promise<boolean> {
  const real = await fs.realpath(candidate);
  if (isInside(base, real, { orSame: true })) return true;
  if (real.split(path.sep).some((part) => CREDENTIAL_FOLDERS.has(part) || /^\.env(\.|$)/.test(part)))
    return false;
  const text = await readTextFile(real);
  return text !== null && findSecrets(text).length === 0;
}

/** A regular text file's content, or null when it is missing, not a file, unreadable or binary. */
async function readTextFile(filePath: string): Promise<string | null> {
  try {
    const stat = await fs.stat(filePath);
    if (!stat.isFile()) return null;
    const text = await fs.readFile(filePath, "utf8");
    return text.includes("\u0000") ? null : text;
  } catch {
    return null;
  }
}

/**
 * An index (`MEMORY.md`) as an instruction file, capped by `readIndex` (200 lines / 25,000 bytes,
 * with the warning line). Its text is shown as written: no comment stripping, and no `@path`
 * imports, because the model writes the index and must not be able to pull other files in.
 */
async function loadIndexFile(
  memoryDir: string,
  type: "AutoMem" | "TeamMem",
): Promise<InstructionFile | null> {
  const index = await readIndex(memoryDir);
  if (!index.exists) return null;
  // Shown among the user's instructions: a line that reads as one is left out (src/memdir/trust/withhold.ts).
  const content = await indexWithoutInstructions(index.content);
  return {
    path: index.path,
    type,
    content,
    bytes: Buffer.byteLength(content, "utf8"),
    imports: [],
    truncated: index.truncated,
  };
}
