import os from "node:os";
import path from "node:path";
import { IMPORT_KINDS, type ImportReport, isImportKind } from "../../../import/sources/types.ts";
import { ensureMemoryDir } from "../../../memdir/location/paths.ts";
import {
  type CommonOptions,
  type RegisterCommand,
  resolveFrom,
  usageError,
  withCommonOptions,
} from "../../support/common.ts";
import { locationFromOptions } from "../../support/location.ts";
import { type CliIO, printJson, processIO } from "../../support/output.ts";

interface ImportOptions extends CommonOptions {
  from?: string;
  project?: string;
  dryRun?: boolean;
}

/**
 * `memdir import <kind> [--from PATH] [--project DIR] [--dry-run] [--json]` (docs/import.md):
 * memories from another memory tool, through the single writer, as one history entry that
 * `memdir undo` takes back. `--json` prints `{imported: [file…], merged: [file…], skipped:
 * [{source, reason}]}`; a count of the progress goes to stderr when it is a terminal.
 */
export const registerImportCommand: RegisterCommand = (program, context) => {
  withCommonOptions(
    program
      .command("import")
      .description("import memories from another memory tool (one history entry: memdir undo takes it back)")
      .argument("<kind>", `the source's format: ${IMPORT_KINDS.join(", ")}`)
      .option("--from <path>", "the source file or folder (default: the tool's own place, where it has one)")
      .option("--project <dir>", "the project to import into (default: the current directory's)")
      .option("--dry-run", "show what would be imported, merged and skipped; write nothing"),
  ).action(async (kind: string, options: ImportOptions) => {
    if (!isImportKind(kind))
      throw usageError(`import: unknown kind ${JSON.stringify(kind)} (one of ${IMPORT_KINDS.join(", ")})`);
    const location = await locationFromOptions(
      {
        ...options,
        ...(options.project
          ? { cwd: path.resolve(resolveFrom(context, options.cwd ?? "."), options.project) }
          : {}),
      },
      context,
    );
    if (!options.dryRun) await ensureMemoryDir(location);
    const { runImport } = await import("../../../import/run.ts");
    const progress = progressCounter(context.io);
    const report = await runImport({
      kind,
      ...(options.from ? { from: resolveFrom(context, options.from) } : {}),
      memoryDir: location.memoryDir,
      projectRoot: location.projectRoot,
      root: location.root,
      home: context.env.HOME || os.homedir(),
      dryRun: options.dryRun === true,
      onProgress: progress.update,
    });
    progress.done();
    if (options.json) printJson(context.io, report);
    else context.io.stdout(formatReport(report, options.dryRun === true));
  });
};

// Fewer than this many and the import is over before a count is worth reading.
const PROGRESS_FROM = 50;

/** `importing 120/2000` rewritten in place on stderr, when stderr is a terminal; else nothing. */
function progressCounter(io: CliIO): { update: (done: number, total: number) => void; done: () => void } {
  const terminal = io === processIO && process.stderr.isTTY === true;
  let shown = false;
  return {
    update: (done, total) => {
      if (!terminal || total < PROGRESS_FROM) return;
      shown = true;
      io.stderr(`\rimporting ${done}/${total}`);
    },
    done: () => {
      if (shown) io.stderr("\n");
    },
  };
}

/** The report as text: counts, then one line per file or skipped source. */
export function formatReport(report: ImportReport, dryRun: boolean): string {
  const verb = dryRun ? "would import" : "imported";
  const lines = [
    `${verb} ${report.imported.length}, ${dryRun ? "would merge" : "merged"} ${report.merged.length}, skipped ${report.skipped.length}` +
      (dryRun ? " (dry run: nothing written)" : ""),
  ];
  for (const file of report.imported) lines.push(`  + ${file}`);
  for (const file of report.merged) lines.push(`  ~ ${file}`);
  for (const skipped of report.skipped) lines.push(`  - ${skipped.source}: ${skipped.reason}`);
  if (!dryRun && report.imported.length + report.merged.length > 0)
    lines.push("one history entry: `memdir undo` takes the whole import back");
  return `${lines.join("\n")}\n`;
}
