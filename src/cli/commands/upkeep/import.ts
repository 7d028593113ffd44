import os from "node:os";
import path from "node:path";
import {
  IMPORT_KINDS,
  type ImportReport,
  isImportKind,
  isWaitingForReview,
} from "../../../import/sources/types.ts";
import { ensureMemoryDir } from "../../../memdir/location/paths.ts";
import {
  type CommonOptions,
  type RegisterCommand,
  resolveFrom,
  usageError,
  withCommonOptions,
} from "../../support/common.ts";
import { configFromOptions, locationFromOptions } from "../../support/location.ts";
import { printJson } from "../../support/output.ts";
import { terminalProgress } from "../../support/progress.ts";

interface ImportOptions extends CommonOptions {
  from?: string;
  project?: string;
  dryRun?: boolean;
}

/**
 * `memdir import <kind> [--from PATH] [--project DIR] [--dry-run] [--json]` (docs/import.md):
 * memories from another memory tool, through the single writer, as one history entry that
 * `memdir undo` takes back. `--json` prints `{imported: [file…], merged: [file…], skipped:
 * [{source, reason}]}`; a long import's progress is drawn on stderr when it is a terminal
 * (docs/design.md#progress). Under `memoryMode` review or manual the import waits in the inbox
 * as one proposal, and every memory in it is reported as skipped with the proposal to accept.
 */
export const registerImportCommand: RegisterCommand = (program, context) => {
  withCommonOptions(
    program
      .command("import")
      .description("import memories from another memory tool (one history entry: memdir undo takes it back)")
      .argument("<kind>", `the source's format: ${IMPORT_KINDS.join(", ")}`)
      .argument("[path]", "the source file or folder, as --from gives it")
      .option("--from <path>", "the source file or folder (default: the tool's own place, where it has one)")
      .option("--project <dir>", "the project to import into (default: the current directory's)")
      .option("--dry-run", "show what would be imported, merged and skipped; write nothing"),
  ).action(async (kind: string, source: string | undefined, given: ImportOptions) => {
    if (!isImportKind(kind))
      throw usageError(`import: unknown kind ${JSON.stringify(kind)} (one of ${IMPORT_KINDS.join(", ")})`);
    // `memdir import markdown notes/` reads as `--from notes/`: the place is what a user types next.
    if (source !== undefined && given.from !== undefined && source !== given.from)
      throw usageError(`import: the source is given twice (${source} and --from ${given.from}): give one`);
    const options = source === undefined ? given : { ...given, from: source };
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
    const progress = terminalProgress(context, options);
    const report = await runImport({
      kind,
      ...(options.from ? { from: resolveFrom(context, options.from) } : {}),
      memoryDir: location.memoryDir,
      projectRoot: location.projectRoot,
      root: location.root,
      home: context.env.HOME || os.homedir(),
      dryRun: options.dryRun === true,
      // Each project's own memoryMode (docs/modes.md#memory-modes): review and manual make
      // the import a proposal in that memory dir's inbox.
      memoryModeFor: (projectRoot) =>
        configFromOptions(options, context, projectRoot === location.projectRoot ? location : { projectRoot })
          .memoryMode,
      ...(progress
        ? { onProgress: (done: number, total: number) => progress("importing memories", done, total) }
        : {}),
    });
    if (options.json) printJson(context.io, report);
    else context.io.stdout(formatReport(report, options.dryRun === true));
  });
};

/** The report as text: counts, then one line per file or skipped source. */
export function formatReport(report: ImportReport, dryRun: boolean): string {
  const verb = dryRun ? "would import" : "imported";
  const waiting = report.skipped.filter((skipped) => isWaitingForReview(skipped.reason)).length;
  const lines = [
    `${verb} ${report.imported.length}, ${dryRun ? "would merge" : "merged"} ${report.merged.length}, ` +
      (waiting > 0 ? `${dryRun ? "would wait" : "waiting"} for review ${waiting}, ` : "") +
      `skipped ${report.skipped.length - waiting}` +
      (dryRun ? " (dry run: nothing written)" : ""),
  ];
  for (const file of report.imported) lines.push(`  + ${file}`);
  for (const file of report.merged) lines.push(`  ~ ${file}`);
  for (const skipped of report.skipped) lines.push(`  - ${skipped.source}: ${skipped.reason}`);
  if (!dryRun && report.imported.length + report.merged.length > 0)
    lines.push("one history entry: `memdir undo` takes the whole import back");
  if (!dryRun && waiting > 0)
    lines.push(
      "the import waits in the inbox as one proposal: accepting it writes it as one history entry, which `memdir undo` takes back",
    );
  return `${lines.join("\n")}\n`;
}
