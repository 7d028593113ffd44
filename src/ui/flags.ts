import { metadataOf } from "../memdir/format/frontmatter.ts";
import { anchorRoot, anchorsOf, checkAnchors } from "../memdir/trust/anchors.ts";
import { provenanceOf } from "../memdir/trust/provenance.ts";

/**
 * The flags `memdir ui` shows on a memory and on an inbox proposal: the one place that decides
 * them (docs/ui.md#flags): a sync conflict (frontmatter `conflictOf:`, docs/design.md#sync), a
 * stale anchor (frontmatter `anchors:` checked against the project, docs/design.md#stale-anchors)
 * and a proposal held back with a `reason` (docs/design.md#quarantine: quarantined text waits in
 * the inbox, never in a memory).
 */
export type FlagKind = "conflict" | "stale-anchor" | "quarantined";

export interface Flag {
  kind: FlagKind;
  /** One line for the page, e.g. `conflicts with feedback-x.md`. */
  message: string;
}

/** A frontmatter key at the top level, else under Claude Code's `metadata:` map. */
function frontmatterValue(frontmatter: Record<string, unknown>, key: string): unknown {
  return frontmatter[key] ?? metadataOf(frontmatter)?.[key];
}

/** The string value of `key`, trimmed, or null when absent or not a string. */
function stringValue(frontmatter: Record<string, unknown>, key: string): string | null {
  const value = frontmatterValue(frontmatter, key);
  return typeof value === "string" && value.trim() !== "" ? value.trim() : null;
}

/** Where a memory came from: its provenance `source:` (`user`, `cli`, `agent`, …), or null. */
export function memorySource(frontmatter: Record<string, unknown>): string | null {
  return provenanceOf(frontmatter).source;
}

/**
 * The flags of one memory from its frontmatter. The anchor check is a stat and a hash of the
 * files the memory names (at most 8), so a page of 50 memories stays cheap.
 *
 * @example
 * await memoryFlags(memoryDir, "a.conflict-1f2e.md", { conflictOf: "a.md" }); // [{kind:"conflict", message:"conflicts with a.md"}]
 */
export async function memoryFlags(
  memoryDir: string,
  _file: string,
  frontmatter: Record<string, unknown>,
): Promise<Flag[]> {
  const flags: Flag[] = [];
  const conflictOf = stringValue(frontmatter, "conflictOf");
  if (conflictOf !== null) flags.push({ kind: "conflict", message: `conflicts with ${conflictOf}` });
  const anchors = anchorsOf(frontmatter);
  const projectRoot = anchors.length > 0 ? await anchorRoot(memoryDir) : null;
  if (projectRoot !== null)
    for (const change of await checkAnchors(anchors, projectRoot))
      flags.push({ kind: "stale-anchor", message: change.message });
  return flags;
}

/**
 * The flags of an inbox proposal: quarantined when it carries a `reason` (docs/design.md#quarantine: held back
 * content waits in the inbox with why), a conflict when a file it adds has `conflictOf:`.
 */
export function proposalFlags(
  proposal: { reason?: unknown },
  addedFrontmatter: readonly Record<string, unknown>[],
): Flag[] {
  const flags: Flag[] = [];
  if (typeof proposal.reason === "string" && proposal.reason.trim() !== "")
    flags.push({ kind: "quarantined", message: `quarantined: ${proposal.reason.trim()}` });
  for (const frontmatter of addedFrontmatter) {
    const conflictOf = stringValue(frontmatter, "conflictOf");
    if (conflictOf !== null) flags.push({ kind: "conflict", message: `conflicts with ${conflictOf}` });
  }
  return flags;
}
