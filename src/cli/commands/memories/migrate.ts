import { resolveRoot } from "../../../config.ts";
import {
  findOrphanedMemoryDirs,
  findProjectRoot,
  migrateMemory,
  resolveMemoryLocation,
} from "../../../memdir/location/paths.ts";
import {
  type CommonOptions,
  type RegisterCommand,
  resolveFrom,
  usageError,
  withCommonOptions,
} from "../../support/common.ts";
import { printJson } from "../../support/output.ts";

interface MigrateOptions extends CommonOptions {
  from?: string;
}

/**
 * `memdir migrate [--from OLD-PROJECT-PATH]`: after a project moves, its memory stays under the
 * old path's directory (docs/design.md#project-ownership). Without `--from`, lists memory directories whose
 * project no longer exists; with it, moves that memory to the current project (`--cwd`).
 */
export const registerMigrateCommand: RegisterCommand = (program, context) => {
  withCommonOptions(
    program
      .command("migrate")
      .description(
        "move memory left behind by a project that was moved or renamed (lists candidates without --from)",
      )
      .option(
        "--from <old-project-path>",
        "the project's old path, whose memory moves to the current project",
      ),
  ).action(async (options: MigrateOptions) => {
    if (options.dir)
      throw usageError("migrate: --dir names a memory directory directly; use --cwd and --from");
    const env = context.env;
    const home = env.HOME || undefined;
    const root = resolveRoot({ root: options.root, env, home });
    if (!options.from) {
      const orphans = await findOrphanedMemoryDirs(root);
      if (options.json) {
        printJson(context.io, { orphaned: orphans });
        return;
      }
      if (orphans.length === 0) {
        context.io.stdout("No memory left behind: every memory directory's project still exists.\n");
        return;
      }
      context.io.stdout("Memory whose project no longer exists (move one with --from):\n");
      for (const orphan of orphans) context.io.stdout(`  ${orphan.projectRoot}  →  ${orphan.memoryDir}\n`);
      return;
    }
    const to = findProjectRoot(resolveFrom(context, options.cwd ?? "."));
    const moved = await migrateMemory({ from: options.from, to, root });
    // Resolving the new location checks the marker now names this project.
    const location = await resolveMemoryLocation({ cwd: to, root, env, home });
    if (options.json) printJson(context.io, { from: moved.from, to: moved.to, projectRoot: to });
    else context.io.stdout(`Moved ${moved.from} → ${location.memoryDir}\n`);
  });
};
