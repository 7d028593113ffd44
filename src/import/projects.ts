import fs from "node:fs/promises";
import path from "node:path";
import { readProjectMarker } from "../memdir/location/paths.ts";
import type { ImportCandidate, SkippedSource } from "./sources/types.ts";

/** A memory dir an import writes into. */
export interface ImportTarget {
  memoryDir: string;
  projectRoot: string | null;
  /** The memory dir the command was run for (its files are reported by name, others by full path). */
  primary: boolean;
}

/**
 * Splits candidates by the memory dir they belong in (docs/import.md#claude-mem). A candidate
 * with no project, or with the name of the project imported into (claude-mem names a project by
 * its git root's folder name), goes to `primary`; with `--dir` (no project) everything does.
 * Another project goes to its own memory dir when exactly one memory dir under `<root>/projects/`
 * is owned (its `.memdir-project` marker) by a project of that name; otherwise the candidate is
 * skipped and the reason says how to import it.
 */
export async function routeByProject(
  candidates: readonly ImportCandidate[],
  primary: { memoryDir: string; projectRoot: string | null; root: string },
): Promise<{ groups: { target: ImportTarget; candidates: ImportCandidate[] }[]; skipped: SkippedSource[] }> {
  const primaryTarget: ImportTarget = {
    memoryDir: primary.memoryDir,
    projectRoot: primary.projectRoot,
    primary: true,
  };
  const groups = new Map<string, { target: ImportTarget; candidates: ImportCandidate[] }>([
    [primary.memoryDir, { target: primaryTarget, candidates: [] }],
  ]);
  const skipped: SkippedSource[] = [];
  const ownName = primary.projectRoot === null ? null : path.basename(primary.projectRoot);
  let owners: { memoryDir: string; projectRoot: string }[] | null = null;
  for (const candidate of candidates) {
    const project = candidate.project;
    if (project === undefined || primary.projectRoot === null || project === ownName) {
      groups.get(primary.memoryDir)?.candidates.push(candidate);
      continue;
    }
    owners ??= await memoryDirOwners(primary.root);
    const matches = owners.filter((owner) => path.basename(owner.projectRoot) === project);
    if (matches.length !== 1) {
      skipped.push({
        source: candidate.label,
        reason:
          matches.length === 0
            ? `project "${project}": no memory dir of that project is known; run the import with --project <its folder>`
            : `project "${project}": several projects have that name (${matches.map((m) => m.projectRoot).join(", ")}); run the import with --project <the one meant>`,
      });
      continue;
    }
    const [owner] = matches;
    let group = groups.get(owner.memoryDir);
    if (!group) {
      group = {
        target: { memoryDir: owner.memoryDir, projectRoot: owner.projectRoot, primary: false },
        candidates: [],
      };
      groups.set(owner.memoryDir, group);
    }
    group.candidates.push(candidate);
  }
  return { groups: [...groups.values()], skipped };
}

/** The memory dirs under `<root>/projects/` with the project that owns each. */
async function memoryDirOwners(root: string): Promise<{ memoryDir: string; projectRoot: string }[]> {
  const projectsDir = path.join(root, "projects");
  const names = await fs.readdir(projectsDir).catch(() => [] as string[]);
  const owners: { memoryDir: string; projectRoot: string }[] = [];
  for (const name of names.sort()) {
    const memoryDir = path.join(projectsDir, name, "memory");
    const marker = await readProjectMarker(memoryDir);
    if (marker) owners.push({ memoryDir, projectRoot: marker.projectRoot });
  }
  return owners;
}
