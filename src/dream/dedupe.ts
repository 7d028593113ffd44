import path from "node:path";
import { parseFrontmatter } from "../memdir/frontmatter.ts";
import { INDEX_FILE, parseIndex } from "../memdir/index-file.ts";
import { readRegularText } from "../memdir/regular-file.ts";
import { scanHeaders } from "../memdir/scan.ts";
import { removeMemory, saveMemory } from "../memdir/write.ts";
import type { Clock, MemoryType } from "../types.ts";
import { type HistoryEntry, recordChange } from "./history.ts";

/**
 * Offline consolidation (issue 8): exact and near-exact duplicate memories, found without a model,
 * merged into one file with one index line. Deterministic: the same directory always gives the
 * same plan, so `--propose` and the real run agree.
 */

/** One memory file, read whole. */
export interface MemoryDocument {
  file: string;
  type: MemoryType;
  description: string;
  body: string;
  mtimeMs: number;
  /** True when `MEMORY.md` points at it. */
  indexed: boolean;
}

/** Memories that say the same thing: `keep` survives (with `mergedBody`), `remove` go. */
export interface DuplicateGroup {
  type: MemoryType;
  keep: string;
  remove: string[];
  /** `exact`: same description and body once normalized; `near`: high word overlap. */
  reason: "exact" | "near";
  /** Lowest pairwise similarity that joined the group (0..1). */
  similarity: number;
  description: string;
  /** The survivor's body plus any line only a removed copy had, so nothing said is lost. */
  mergedBody: string;
}

/** Word overlap at or above which two memories of one type are near-duplicates. */
export const NEAR_DUPLICATE_JACCARD = 0.85;
/** With the same description, the bodies need this much overlap. */
export const SAME_DESCRIPTION_BODY_JACCARD = 0.6;
/** …or the smaller body's words must nearly all be in the other. */
export const SAME_DESCRIPTION_CONTAINMENT = 0.9;
// Tiny memories share most of their few words by chance ("use pnpm" / "use npm").
const MIN_TOKENS_FOR_NEAR = 4;

const segmenter = new Intl.Segmenter(undefined, { granularity: "word" });

/** Lower-case, NFKC, punctuation and spacing removed: equal text reads equal. */
export function normalizeText(text: string): string {
  return text
    .normalize("NFKC")
    .toLowerCase()
    .replace(/[\p{P}\p{S}]+/gu, " ")
    .replace(/\s+/g, " ")
    .trim();
}

/** The set of words (for CJK: the segmenter's words) of a text. */
export function wordSet(text: string): Set<string> {
  const words = new Set<string>();
  for (const part of segmenter.segment(normalizeText(text))) if (part.isWordLike) words.add(part.segment);
  return words;
}

/** |A ∩ B| / |A ∪ B|; two empty sets are identical. */
export function jaccard(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  if (a.size === 0 && b.size === 0) return 1;
  let shared = 0;
  for (const word of a) if (b.has(word)) shared++;
  return shared / (a.size + b.size - shared);
}

/** |A ∩ B| / min(|A|, |B|): how much of the smaller set the larger one holds. */
export function containment(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  if (small.size === 0) return 0;
  let shared = 0;
  for (const word of small) if (large.has(word)) shared++;
  return shared / small.size;
}

/** How alike two memories of the same type are, or null when they are not duplicates. */
export function duplicateKind(
  a: Pick<MemoryDocument, "description" | "body">,
  b: Pick<MemoryDocument, "description" | "body">,
): { reason: "exact" | "near"; similarity: number } | null {
  const sameDescription = normalizeText(a.description) === normalizeText(b.description);
  if (sameDescription && normalizeText(a.body) === normalizeText(b.body))
    return { reason: "exact", similarity: 1 };
  const bodyA = wordSet(a.body);
  const bodyB = wordSet(b.body);
  if (sameDescription && Math.min(bodyA.size, bodyB.size) > 0) {
    const similarity = jaccard(bodyA, bodyB);
    // Same description and one body (nearly) inside the other: the longer one is an update of the shorter.
    if (
      similarity >= SAME_DESCRIPTION_BODY_JACCARD ||
      containment(bodyA, bodyB) >= SAME_DESCRIPTION_CONTAINMENT
    )
      return { reason: "near", similarity };
  }
  const allA = wordSet(`${a.description}\n${a.body}`);
  const allB = wordSet(`${b.description}\n${b.body}`);
  if (Math.min(allA.size, allB.size) < MIN_TOKENS_FOR_NEAR) return null;
  const similarity = jaccard(allA, allB);
  return similarity >= NEAR_DUPLICATE_JACCARD ? { reason: "near", similarity } : null;
}

/** The survivor: the longest body (it says the most), then the indexed one, then the newest, then by name. */
function survivorOrder(a: MemoryDocument, b: MemoryDocument): number {
  if (a.body.trim().length !== b.body.trim().length) return b.body.trim().length - a.body.trim().length;
  if (a.indexed !== b.indexed) return a.indexed ? -1 : 1;
  if (a.mtimeMs !== b.mtimeMs) return b.mtimeMs - a.mtimeMs;
  return a.file < b.file ? -1 : 1;
}

/** The survivor's body plus each line only a removed copy had (compared normalized). */
export function mergeBodies(keep: string, others: readonly string[]): string {
  const seen = new Set(keep.split("\n").map(normalizeText).filter(Boolean));
  const added: string[] = [];
  for (const body of others) {
    for (const line of body.split("\n")) {
      const key = normalizeText(line);
      if (key === "" || seen.has(key)) continue;
      seen.add(key);
      added.push(line.trimEnd());
    }
  }
  if (added.length === 0) return keep;
  return `${keep.replace(/\s+$/, "")}\n${added.join("\n")}\n`;
}

/**
 * Groups duplicate memories (pure). Only memories of the same type are compared; groups are the
 * connected pairs, so A≈B and B≈C put all three together.
 *
 * @example
 * findDuplicateGroups(docs) // [{keep: "feedback-real-db.md", remove: ["feedback-real-db-2.md"], reason: "exact", …}]
 */
export function findDuplicateGroups(memories: readonly MemoryDocument[]): DuplicateGroup[] {
  const sorted = [...memories].sort((a, b) => (a.file < b.file ? -1 : 1));
  const parent = sorted.map((_, i) => i);
  const find = (i: number): number => {
    while (parent[i] !== i) i = parent[i];
    return i;
  };
  const pairs: { i: number; j: number; reason: "exact" | "near"; similarity: number }[] = [];
  for (let i = 0; i < sorted.length; i++) {
    for (let j = i + 1; j < sorted.length; j++) {
      if (sorted[i].type !== sorted[j].type) continue;
      const kind = duplicateKind(sorted[i], sorted[j]);
      if (!kind) continue;
      pairs.push({ i, j, ...kind });
      parent[find(j)] = find(i);
    }
  }
  const members = new Map<number, number[]>();
  sorted.forEach((_, i) => {
    const root = find(i);
    members.set(root, [...(members.get(root) ?? []), i]);
  });
  const groups: DuplicateGroup[] = [];
  for (const [root, indexes] of members) {
    if (indexes.length < 2) continue;
    const docs = indexes.map((i) => sorted[i]).sort(survivorOrder);
    const joined = pairs.filter((p) => find(p.i) === root);
    const [keep, ...rest] = docs;
    groups.push({
      type: keep.type,
      keep: keep.file,
      remove: rest.map((d) => d.file),
      reason: joined.every((p) => p.reason === "exact") ? "exact" : "near",
      similarity: Math.min(...joined.map((p) => p.similarity)),
      description: keep.description,
      mergedBody: mergeBodies(
        keep.body,
        rest.map((d) => d.body),
      ),
    });
  }
  return groups.sort((a, b) => (a.keep < b.keep ? -1 : 1));
}

/** Reads every memory with a valid type and description (others are left alone). */
export async function loadMemoryDocuments(memoryDir: string): Promise<MemoryDocument[]> {
  const headers = await scanHeaders(memoryDir, { cache: null });
  const indexText = await readRegularText(path.join(memoryDir, INDEX_FILE)).catch(() => "");
  const indexed = new Set(parseIndex(indexText).map((entry) => entry.file));
  const documents: MemoryDocument[] = [];
  for (const header of headers) {
    const text = await readRegularText(header.path).catch(() => null);
    if (text === null) continue;
    const parsed = parseFrontmatter(text);
    if (!parsed.type || !parsed.description) continue;
    documents.push({
      file: header.file,
      type: parsed.type,
      description: parsed.description,
      body: parsed.body,
      mtimeMs: header.mtimeMs,
      indexed: indexed.has(header.file),
    });
  }
  return documents;
}

/** Carries out the groups through the single writer: the survivor is saved, the copies removed with their index lines. */
export async function applyDuplicateGroups(
  memoryDir: string,
  groups: readonly DuplicateGroup[],
): Promise<{ merged: string[]; removed: string[] }> {
  const merged: string[] = [];
  const removed: string[] = [];
  const indexText = await readRegularText(path.join(memoryDir, INDEX_FILE)).catch(() => "");
  const entries = parseIndex(indexText);
  for (const group of groups) {
    const current = await readRegularText(path.join(memoryDir, group.keep)).catch(() => "");
    const needsIndexLine = !entries.some((e) => e.file === group.keep);
    if (parseFrontmatter(current).body !== group.mergedBody || needsIndexLine) {
      const borrowed = entries.find((e) => group.remove.includes(e.file));
      await saveMemory(memoryDir, {
        file: group.keep,
        type: group.type,
        description: group.description,
        body: group.mergedBody,
        ...(needsIndexLine && borrowed ? { title: borrowed.title, hook: borrowed.hook || undefined } : {}),
      });
    }
    merged.push(group.keep);
    for (const file of group.remove) {
      await removeMemory(memoryDir, file);
      removed.push(file);
    }
  }
  return { merged, removed };
}

export interface DedupeResult {
  groups: DuplicateGroup[];
  merged: string[];
  removed: string[];
  /** The history entry (null when nothing was a duplicate). */
  entry: HistoryEntry | null;
}

/** A one-line summary of a dedupe plan, for history and the CLI. */
export function describeGroups(groups: readonly DuplicateGroup[]): string {
  if (groups.length === 0) return "no duplicate memories";
  return groups.map((g) => `merged ${g.remove.join(", ")} into ${g.keep} (${g.reason})`).join("; ");
}

/**
 * Finds and merges duplicate memories, recorded in the history first so `memdir undo` can take
 * the merge back.
 *
 * @example
 * const { removed } = await dedupeMemories(memoryDir);
 */
export async function dedupeMemories(
  memoryDir: string,
  options: {
    now?: Clock /** False on a scratch copy (propose mode): no history there. */;
    record?: boolean;
  } = {},
): Promise<DedupeResult> {
  const groups = findDuplicateGroups(await loadMemoryDocuments(memoryDir));
  if (groups.length === 0) return { groups, merged: [], removed: [], entry: null };
  if (options.record === false)
    return { groups, ...(await applyDuplicateGroups(memoryDir, groups)), entry: null };
  const { result, entry } = await recordChange(
    memoryDir,
    { kind: "dedupe", message: describeGroups(groups), now: options.now },
    () => applyDuplicateGroups(memoryDir, groups),
  );
  return { groups, ...result, entry };
}
