import { conflictFileName } from "../memdir/format/conflicts.ts";
import { INDEX_FILE } from "../memdir/format/index-file.ts";
import type { SyncAction } from "./plan.ts";
import { listFolder, type SyncClone, type TreeFile } from "./repository.ts";
import type { RecordedPull } from "./state.ts";

// A pull taken back with `memdir undo` is taken back on this machine only (docs/design.md#undo,
// docs/design.md#sync). The undo leaves each file the pull wrote as it was before the pull, while
// the base (the remote commit the folder matched) has moved past it: read against that base, the
// undo looked like this machine deleting the remote's new memories and putting its old texts back,
// and the next sync pushed that to everyone. So a folder's state keeps, per recent pull, its
// history entry and the base it was decided against; when the history says an entry stands undone,
// the files its undo put back are decided against their base from before the pull: the remote's
// changes read as the remote's again (pulled again, or proposed again under review), and only
// this machine's own edits are pushed.
//
// A pull is known by a mark, not by its history entry's id: the sync chooses the mark and keeps
// the record in state.json BEFORE the pull writes anything, and the entry carries the mark
// (`Mark:` in its commit, `mark` in a journal manifest). The id exists only once the entry is
// committed, and a pull stopped part-way (its time bound, `sync --auto`'s included; a SIGKILL
// before state.json is written again) left an entry, "failed part-way" or whole, that no record
// named: the next sync moved the base past it, and its undo was pushed. With the mark kept first,
// every entry a pull can leave is named by a record, whenever the process stops; a record whose
// pull left no entry names nothing and is harmless (docs/design.md#sync, "Undoing a pull";
// docs/design.md#undo). Under review the remote's changes come in by `memdir inbox accept`: the
// proposal's id is the mark of its `apply` entry, kept before the proposal is saved, so an undone
// accept reads as an undone pull (proposed again, never pushed).
//
// The sync asks the history rather than the undo telling the sync: the history is the one record
// of what was undone, whichever way the undo came (`memdir undo`, by id, the web view, the
// `memdir/dream` API, an undo that was itself undone), and undo stays knowing nothing of clones.

/**
 * How many pulls a folder's state remembers (about 100 bytes each in state.json, which every sync
 * writes). An undo of a pull older than that is read as it was before: as this machine's edits.
 */
export const PULLS_KEPT = 100;

/**
 * Which of the given marks (of history entries) stand undone, each with the files its undo put back,
 * relative to the memory dir (the history's `undonePulls`, src/dream/history.ts).
 */
export type UndonePullsQuestion = (
  memoryDir: string,
  entries: readonly string[],
) => Promise<ReadonlyMap<string, readonly string[]>>;

/**
 * The base every file of an undone pull goes back to, by file (null: absent), from the record's
 * own `bases` or its base commit. When several undone pulls wrote one file, the oldest one's
 * base wins: the file holds what it held before that one. `prefix` is the folder synced, inside
 * the memory dir the history names files from (`team/`, or empty).
 */
export async function basesBeforeUndonePulls(
  clone: SyncClone,
  key: string,
  pulls: readonly RecordedPull[],
  undone: ReadonlyMap<string, readonly string[]>,
  prefix: string,
  current: { commit: string | null; files: ReadonlyMap<string, TreeFile> },
): Promise<Map<string, string | null>> {
  const bases = new Map<string, string | null>();
  const listings = new Map([[current.commit, Promise.resolve(current.files)]]);
  const listing = (commit: string | null) => {
    let files = listings.get(commit);
    if (files === undefined) {
      files = commit === null ? Promise.resolve(new Map()) : listFolder(clone, commit, key);
      listings.set(commit, files);
    }
    return files;
  };
  for (const pull of [...pulls].reverse()) {
    const files = undone.get(pull.entry);
    if (files === undefined) continue;
    const inBase = await listing(pull.base);
    const named = files.flatMap((file) => {
      const inFolder = prefix === "" ? file : file.startsWith(prefix) ? file.slice(prefix.length) : null;
      return inFolder === null || inFolder === INDEX_FILE ? [] : [inFolder];
    });
    for (const file of new Set([...named, ...Object.keys(pull.bases ?? {})]))
      bases.set(
        file,
        pull.bases !== undefined && file in pull.bases ? pull.bases[file] : (inBase.get(file)?.blob ?? null),
      );
  }
  return bases;
}

/**
 * A pull as the state keeps it: its mark, the base commit it was decided against, and the
 * decided base of the files that commit does not give: the memory of a conflict (the pull left it
 * as it was, so its undo does not name it) and any file whose base was held (`overridden`).
 */
export function recordedPull(
  mark: string,
  baseCommit: string | null,
  actions: readonly SyncAction[],
  decided: { base: ReadonlyMap<string, string>; overridden: ReadonlySet<string> },
): RecordedPull {
  const bases: Record<string, string | null> = {};
  const keep = (file: string) => {
    bases[file] = decided.base.get(file) ?? null;
  };
  for (const action of actions) {
    if (action.kind === "push") continue;
    if (action.kind === "conflict" || decided.overridden.has(action.file)) keep(action.file);
    if (action.kind === "conflict") {
      const file = conflictFileName(action.file, action.blob.slice(0, 8));
      if (decided.overridden.has(file)) keep(file);
    }
  }
  return { entry: mark, base: baseCommit, ...(Object.keys(bases).length > 0 ? { bases } : {}) };
}

/** The pulls a folder's state keeps: the undone ones dropped (settled), the new one added. */
export function keptPulls(
  previous: readonly RecordedPull[] | undefined,
  undone: ReadonlySet<string>,
  added: RecordedPull | null,
): RecordedPull[] {
  const kept = (previous ?? []).filter((pull) => !undone.has(pull.entry));
  if (added !== null) kept.push(added);
  return kept.slice(-PULLS_KEPT);
}
