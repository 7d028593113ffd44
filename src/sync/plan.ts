// The merge rules of a sync, as a pure decision over blob ids (docs/design.md#sync): no file is
// read or written here. `base` is the project's folder as this machine last synced it, `ours`
// the memory dir now, `theirs` the remote now; each maps a file (relative to the memory dir) to
// its git blob id.

export type FileVersions = ReadonlyMap<string, string>;

/** What to do with one file. */
export type SyncAction =
  /** Ours changed (or was deleted, `blob` null) and theirs did not: the remote gets ours. */
  | { kind: "push"; file: string; blob: string | null }
  /** Theirs changed (or was deleted, `blob` null) and ours did not: the memory dir gets theirs. */
  | { kind: "pull"; file: string; blob: string | null }
  /** Both changed to different texts: ours stays, theirs is kept beside it as a conflict file. */
  | { kind: "conflict"; file: string; blob: string };

/**
 * Decides every file that differs between the three sides:
 * - a file changed on one side only takes that side's version (a deletion included);
 * - deleted on one side and changed on the other: the change wins (nothing is lost);
 * - changed on both sides to different texts: a conflict (ours kept, theirs kept beside it);
 * - `held` files (private, holding a secret, not memdir's to write) are left out: the memory dir
 *   keeps its file, the remote keeps its own.
 *
 * @example
 * planSync(new Map([["a.md", "1"]]), new Map([["a.md", "2"]]), new Map([["a.md", "1"]]), new Set())
 * // [{ kind: "push", file: "a.md", blob: "2" }]
 */
export function planSync(
  base: FileVersions,
  ours: FileVersions,
  theirs: FileVersions,
  held: ReadonlySet<string>,
): SyncAction[] {
  const files = new Set([...base.keys(), ...ours.keys(), ...theirs.keys()]);
  const actions: SyncAction[] = [];
  for (const file of [...files].sort()) {
    if (held.has(file)) continue;
    const b = base.get(file) ?? null;
    const o = ours.get(file) ?? null;
    const t = theirs.get(file) ?? null;
    if (o === t) continue;
    if (o === b) actions.push({ kind: "pull", file, blob: t });
    else if (t === b) actions.push({ kind: "push", file, blob: o });
    else if (o === null) actions.push({ kind: "pull", file, blob: t });
    else if (t === null) actions.push({ kind: "push", file, blob: o });
    else actions.push({ kind: "conflict", file, blob: t });
  }
  return actions;
}
