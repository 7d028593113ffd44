import type { Clock, MemoryMode } from "../types.ts";
import { importInto, reportedPath } from "./apply.ts";
import { routeByProject } from "./projects.ts";
import { readSource } from "./sources/sources.ts";
import type { ImportKind, ImportReport } from "./sources/types.ts";

export interface RunImportOptions {
  kind: ImportKind;
  /** `--from`: the source's path; the tool's default place when omitted. */
  from?: string;
  /** The memory dir imported into and its project (null with `--dir`). */
  memoryDir: string;
  projectRoot: string | null;
  /** The memory root, where other projects' memory dirs are looked up. */
  root: string;
  home: string;
  dryRun?: boolean;
  /**
   * The `memoryMode` of the project a memory dir belongs to (null: a memory dir with no
   * project): `review` and `manual` make that dir's share a proposal in its inbox. Default `auto`.
   */
  memoryModeFor?: (projectRoot: string | null) => MemoryMode;
  now?: Clock;
  /** A count as the import goes: how many sources are done of how many. */
  onProgress?: (done: number, total: number) => void;
}

/**
 * `memdir import <kind>` (docs/import.md): reads the source, sends each memory to the memory dir
 * of its project, and imports each dir's share as one history entry. Files of the memory dir asked
 * for are reported by name, those of another project's by full path.
 *
 * @example
 * const report = await runImport({ kind: "gemini", memoryDir, projectRoot, root, home });
 */
export async function runImport(options: RunImportOptions): Promise<ImportReport> {
  const read = await readSource(options.kind, options.from, {
    home: options.home,
    projectRoot: options.projectRoot,
  });
  const routed = await routeByProject(read.candidates, options);
  const report: ImportReport = { imported: [], merged: [], skipped: [...read.skipped, ...routed.skipped] };
  const total = routed.groups.reduce((sum, group) => sum + group.candidates.length, 0);
  let done = 0;
  for (const { target, candidates } of routed.groups) {
    if (candidates.length === 0) continue;
    const before = done;
    const part = await importInto(target.memoryDir, candidates, {
      dryRun: options.dryRun,
      projectRoot: target.projectRoot,
      what: `${options.kind}${options.from ? ` from ${options.from}` : ""}`,
      memoryMode: options.memoryModeFor?.(target.projectRoot) ?? "auto",
      ...(target.primary ? {} : { inboxFlags: ` --dir ${target.memoryDir}` }),
      now: options.now,
      onProgress: (count) => {
        done = before + count;
        options.onProgress?.(done, total);
      },
    });
    report.imported.push(
      ...part.imported.map((file) => reportedPath(target.memoryDir, file, target.primary)),
    );
    report.merged.push(...part.merged.map((file) => reportedPath(target.memoryDir, file, target.primary)));
    report.skipped.push(...part.skipped);
  }
  return report;
}
