import fs from "node:fs/promises";
import { type ResolvedConfig, resolveConfig } from "../../config.ts";
import { MemdirError } from "../../errors.ts";
import { type Memdir, openMemdir } from "../../memdir/instance.ts";
import { type MemoryLocation, projectOf, resolveMemoryLocation } from "../../memdir/location/paths.ts";
import {
  type CommandContext,
  type CommonOptions,
  type ModelOptions,
  modelConfigOptions,
  resolveFrom,
} from "./common.ts";
import { terminalProgress } from "./progress.ts";

/**
 * The memory location a command works on, from its `--root`, `--cwd` and `--dir` options and the
 * CLI's environment (`MEMDIR_ROOT`, `HOME`). Every command resolves it through here so they all
 * agree on where memory lives.
 *
 * @example
 * const location = await locationFromOptions(options, context);
 * const headers = await memdirForCommand(location, context).scan();
 */
export async function locationFromOptions(
  options: CommonOptions,
  context: CommandContext,
  { cwdMustExist = true }: { cwdMustExist?: boolean } = {},
): Promise<MemoryLocation> {
  const cwd = resolveFrom(context, options.cwd ?? ".");
  // A mistyped `--cwd` would otherwise name a project nobody has: its memory saved, and a
  // folder made for it under the root, where no session of the real project ever looks.
  // (A hook's cwd comes from its host, and a hook never fails its host: it passes false.)
  if (options.cwd !== undefined && cwdMustExist) {
    const stat = await fs.stat(cwd).catch(() => null);
    if (stat === null || !stat.isDirectory())
      throw new MemdirError(
        "usage",
        `--cwd ${options.cwd}: ${stat === null ? "no such directory" : "not a directory"}; nothing was read or written`,
      );
  }
  const location = await resolveMemoryLocation({
    cwd,
    root: options.root,
    dir: options.dir,
    env: context.env,
    home: context.env.HOME || undefined,
  });
  // A `--dir` naming a file read as an empty memory dir: `doctor` said "no issues" and `list` "no
  // memories" where nothing could ever be saved. A missing one is fine: the first save makes it.
  if (options.dir !== undefined) {
    const stat = await fs.stat(location.memoryDir).catch(() => null);
    if (stat !== null && !stat.isDirectory())
      throw new MemdirError("usage", `--dir ${options.dir}: not a directory; nothing was read or written`);
  }
  return location;
}

/**
 * The instance a one-shot command scans its memory dir with, under the CLI's environment
 * (`MEMDIR_NO_CACHE`, `MEMDIR_DEBUG`). No folder watchers: the process ends after a scan or two.
 * Inside the memory helper, its long-lived watched instance of that dir. A command that passes
 * its `output` options gets its long scans drawn on a terminal (`support/progress.ts`); without
 * them (hooks) nothing is drawn.
 */
export function memdirForCommand(
  location: Pick<MemoryLocation, "memoryDir">,
  context: CommandContext,
  output: { json?: boolean } = { json: true },
): Memdir {
  if (context.memdirs) return context.memdirs.open(location.memoryDir, context.env);
  return openMemdir(location.memoryDir, {
    env: context.env,
    watch: false,
    progress: terminalProgress(context, output),
  });
}

/**
 * The resolved configuration for a command: its `--cwd`, `--root` and model flags over the CLI's
 * environment and settings. Pass the memory location when known, so project settings are read
 * from the project root rather than a sub-folder.
 */
export function configFromOptions(
  options: CommonOptions & ModelOptions,
  context: CommandContext,
  location?: Pick<MemoryLocation, "projectRoot" | "sharedFolderOf">,
): ResolvedConfig {
  const projectRoot = projectOf(location);
  return resolveConfig({
    ...modelConfigOptions(options),
    cwd: resolveFrom(context, options.cwd ?? "."),
    root: options.root,
    env: context.env,
    home: context.env.HOME || undefined,
    ...(projectRoot ? { projectRoot } : {}),
  });
}
