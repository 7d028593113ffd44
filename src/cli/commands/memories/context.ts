import fs from "node:fs";
import os from "node:os";
import { resolveConfig } from "../../../config.ts";
import { getMemoryFiles, type InstructionFile } from "../../../instructions/files.ts";
import { formatUserContext } from "../../../instructions/user-context.ts";
import { type MemoryLocation, resolveMemoryLocation } from "../../../memdir/location/paths.ts";
import { memorySystemPrompt } from "../../../prompts/memory-rules.ts";
import {
  type CommandContext,
  type RegisterCommand,
  resolveFrom,
  withCommonOptions,
} from "../../support/common.ts";
import { printable, printJson } from "../../support/output.ts";

interface ContextOptions {
  root?: string;
  cwd?: string;
  dir?: string;
  json?: boolean;
  addDir?: string[];
  managedDir?: string;
  bare?: boolean;
}

/** How the memory index entered the context. */
interface IndexReport {
  path: string | null;
  /** Which limit cut it, or false when it loaded whole (or did not load). */
  truncated: false | "lines" | "bytes";
  exists: boolean;
  loaded: boolean;
  bytes: number;
}

/**
 * `memdir context`: what a new session in `--cwd` would receive — the user context (instruction
 * files, the memory index, today's date) and a manifest of every file loaded. Reads only; it
 * creates nothing, not even the memory directory.
 */
export const registerContextCommand: RegisterCommand = (program, context) => {
  withCommonOptions(
    program
      .command("context")
      .description(
        "show what a new session would load: instruction files, the memory index, the user context",
      ),
  )
    .option("--add-dir <dirs...>", "also load the instruction files of these directories (like --add-dir)")
    .option("--managed-dir <dir>", "managed-policy directory (default: /etc/claude-code on Linux)")
    .option("--bare", "bare mode: auto memory off unless forced on by CLAUDE_CODE_DISABLE_AUTO_MEMORY=0")
    .action(async (options: ContextOptions) => runContext(options, context));
};

async function runContext(options: ContextOptions, context: CommandContext): Promise<void> {
  const env = context.env;
  const home = env.HOME ?? os.homedir();
  const cwd = resolveFrom(context, options.cwd ?? ".");
  const config = resolveConfig({
    cwd,
    root: options.root,
    env,
    home,
    ...(options.bare ? { bare: true } : {}),
  });
  const location = await memoryLocation(config.autoMemory, {
    cwd,
    root: config.root,
    dir: options.dir,
    env,
    home,
  });
  const files = await getMemoryFiles({
    config,
    cwd,
    home,
    root: config.root,
    addDirs: options.addDir ?? [],
    ...(options.managedDir ? { managedDir: options.managedDir } : {}),
    ...(location ? { memoryDir: location.memoryDir } : {}),
    env,
  });
  const userContext = formatUserContext(files);
  const index = indexReport(files, location);
  const memoryRules =
    config.autoMemory && location
      ? memorySystemPrompt({ memoryDir: location.memoryDir, teamMemory: config.teamMemory })
      : null;

  const shown = { config, location, files, userContext, index, memoryRules };
  if (options.json) printJson(context.io, contextJson(shown));
  else printContext(context.io, shown);
}

/** What `memdir context` shows: the settings, the memory dir, the files loaded, the index and the rules. */
interface ContextShown {
  config: ReturnType<typeof resolveConfig>;
  location: Awaited<ReturnType<typeof memoryLocation>>;
  files: Awaited<ReturnType<typeof getMemoryFiles>>;
  userContext: string;
  index: ReturnType<typeof indexReport>;
  memoryRules: string | null;
}

/** `--json`'s answer. */
function contextJson(shown: ContextShown): Record<string, unknown> {
  const { config, location, files, userContext, index, memoryRules } = shown;
  return {
    files: files.map((file) => ({
      path: file.path,
      type: file.type,
      bytes: file.bytes,
      imports: file.imports,
      ...(file.importedBy ? { importedBy: file.importedBy } : {}),
      ...(file.skippedImports ? { skippedImports: file.skippedImports } : {}),
    })),
    index,
    autoMemory: config.autoMemory,
    autoMemoryOffReason: config.autoMemoryOffReason,
    memoryDir: location?.memoryDir ?? null,
    context: userContext,
    memoryRules,
  };
}

/** The answer in words, with a cut index said on stderr. */
function printContext(io: CommandContext["io"], shown: ContextShown): void {
  const { config, location, files, userContext, index, memoryRules } = shown;
  io.stdout(
    config.autoMemory
      ? `Auto memory: on (${location?.memoryDir})\n`
      : `Auto memory: off (${config.autoMemoryOffReason})\n`,
  );
  io.stdout(`Files loaded (${files.length}):\n`);
  for (const file of files) {
    const origin = file.importedBy ? `, imported by ${file.importedBy}` : "";
    io.stdout(`  ${file.type.padEnd(8)} ${file.path} (${file.bytes} bytes${origin})\n`);
    for (const imported of file.imports) io.stdout(`             imports ${imported}\n`);
    for (const skipped of file.skippedImports ?? []) io.stdout(`             skipped import ${skipped}\n`);
  }
  io.stdout(`Index: ${describeIndex(index, config.autoMemory)}\n`);
  if (index.truncated) {
    io.stderr(
      `memdir: context: ${index.path} was cut by the ${index.truncated === "lines" ? "200-line" : "25,000-byte"} limit; ` +
        "keep each index entry to one short line\n",
    );
  }
  io.stdout(`Memory rules in the system prompt: ${memoryRules ? "yes" : "no"}\n`);
  io.stdout(printable(`\n--- user context ---\n${userContext}\n`));
}

/** The memory location, or null when auto memory is off and the location cannot be resolved. */
async function memoryLocation(
  autoMemory: boolean,
  options: Parameters<typeof resolveMemoryLocation>[0],
): Promise<MemoryLocation | null> {
  try {
    return await resolveMemoryLocation(options);
  } catch (error) {
    // With memory off the directory is never used, so a problem with it is not this command's failure.
    if (!autoMemory) return null;
    throw error;
  }
}

function indexReport(files: readonly InstructionFile[], location: MemoryLocation | null): IndexReport {
  const loaded = files.find((file) => file.type === "AutoMem");
  if (loaded) {
    return {
      path: loaded.path,
      truncated: loaded.truncated ?? false,
      exists: true,
      loaded: true,
      bytes: loaded.bytes,
    };
  }
  const indexPath = location?.indexPath ?? null;
  return {
    path: indexPath,
    truncated: false,
    exists: indexPath !== null && fs.existsSync(indexPath),
    loaded: false,
    bytes: 0,
  };
}

function describeIndex(index: IndexReport, autoMemory: boolean): string {
  if (!autoMemory) return `not loaded: auto memory is off (${index.path ?? "no memory directory"})`;
  if (!index.exists) return `${index.path} does not exist yet (nothing saved)`;
  if (index.truncated === "lines") return `${index.path} cut by the 200-line limit`;
  if (index.truncated === "bytes") return `${index.path} cut by the 25,000-byte limit`;
  return `${index.path} loaded whole (${index.bytes} bytes)`;
}
