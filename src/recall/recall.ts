import { throwIfAborted } from "../errors.ts";
import { readMemoryCapped } from "../memdir/fs/read.ts";
import type { Memdir } from "../memdir/instance.ts";
import type { HeaderCache } from "../memdir/scan/header-cache.ts";
import { linkNames } from "../memdir/scan/links.ts";
import { scanHeaders } from "../memdir/scan/scan.ts";
import { anchorRoot } from "../memdir/trust/anchors.ts";
import { shownContent } from "../memdir/trust/withhold.ts";
import { describeFailure } from "../model/side-query-failure.ts";
import { type Clock, type MemoryHeader, type Message, type ReadFileState, savedAtMs } from "../types.ts";
import { SESSION_MEMORY_BUDGET_BYTES } from "./budget.ts";
import { type CandidateStatus, type RecallCandidate, type RecallEvidence, unpickedJudge } from "./explain.ts";
import { cutQuery } from "./lexical/text/query-text.ts";
import { linkedMemories, type PickLinks } from "./linked.ts";
import { DEFAULT_RECALL_K, type MemoryPick, type SelectionDetails, type Selector } from "./selector.ts";
import { surfacedMemoryMessage, vanishedAnchorNotes } from "./surface.ts";

// Defined beside the Selector types so the MCP server lists its tools without loading recall (bench/mcp-startup.ts).

/** One memory that made it into `messages`. */
export interface SurfacedMemory {
  file: string;
  path: string;
  score: number;
  /** When it was saved: its `modified` when valid, else the file's mtime (`savedAtMs`). */
  mtimeMs: number;
  truncated: false | "lines" | "bytes";
  /** The hidden user message carrying it. */
  message: Message;
  /** Set when a picked memory's `[[name]]` link brought this one along: that memory's file. */
  linkedFrom?: string;
}

/** A recall's outcome: plain data; {@link explainRecall} turns `evidence` into every candidate's verdict. */
export interface RecallResult {
  query: string;
  /** The selector's name (`lexical`, `model`, `hybrid`, or the caller's). */
  selector: string;
  /** The picks, then any memory their `[[name]]` links brought along (with `linkedFrom`). */
  selected: { file: string; path: string; score: number; linkedFrom?: string }[];
  /** Hidden user messages (`isMeta: true`), one per selected memory, in rank order. */
  messages: Message[];
  /** Memories dropped on the way: already read/surfaced, over the budget, beyond k, unreadable. */
  skipped: { file: string; reason: string }[];
  /** Set when the selector fell back (e.g. hybrid: the model failed, lexical picks used). */
  fallback?: string;
  /** Set when the model selector gave no usable answer (so the selection is empty, not "nothing helps"). */
  modelFailure?: string;
  /** The selected memories with their messages, for consumers that de-duplicate per path. */
  memories: SurfacedMemory[];
  /** What `explainRecall` reads (complete scores only with `explain`). */
  evidence: RecallEvidence;
}

export interface RecallOptions {
  /** Absolute memory directory to recall from. */
  memoryDir: string;
  /** The query: for the prefetch, the last real user message's text only. */
  query: string;
  /** Chooses the memories; its `name` is shown in the result and `--explain`. */
  selector: Selector;
  /** At most this many memories (default 5). */
  k?: number;
  /** Files read or surfaced in this session; they are dropped before selection. */
  readFileState?: ReadFileState;
  /** Absolute paths already surfaced in this conversation (see `collectSurfacedMemories`). */
  alreadySurfaced?: Iterable<string>;
  /** Bytes of memory already surfaced in this conversation (counts against `budgetBytes`). */
  surfacedBytes?: number;
  /** Session budget of surfaced memory (default 60 KB). */
  budgetBytes?: number;
  now?: Clock;
  signal?: AbortSignal;
  /** Header cache for the scan (default: the one of `memdir`). */
  scanCache?: HeaderCache | null;
  /** The instance whose header cache and watchers the scan uses (default: a private one). */
  memdir?: Memdir;
  /** Tools used successfully in this turn (the selector skips their usage notes). */
  recentTools?: string[];
  /**
   * Score every candidate for `--explain`: the selector is asked for its full ranking (the
   * lexical selector ranks a second time with no `k` limit); the picks themselves never change.
   */
  explain?: boolean;
}

export interface SelectionOptions {
  memoryDir: string;
  query: string;
  selector: Selector;
  k?: number;
  signal?: AbortSignal;
  scanCache?: HeaderCache | null;
  memdir?: Memdir;
  recentTools?: string[];
  /** Headers to leave out before selection (already read or surfaced). */
  exclude?: (header: MemoryHeader) => boolean;
  /** Ask the selector for its full ranking too (`recall --explain`). */
  explain?: boolean;
  /** The query's time: dates it names ("yesterday", "May 4") are resolved against it (default: now). */
  now?: Clock;
}

/** The selection step's outcome: the scan, split into fresh and excluded, and the valid picks. */
export interface MemorySelection {
  /** Every header in the memory dir, newest first. */
  headers: MemoryHeader[];
  /** Headers the selector saw (not excluded). */
  fresh: MemoryHeader[];
  /** Headers left out by `exclude`. */
  excluded: MemoryHeader[];
  /** At most `k` valid picks, best first (unknown files and duplicates dropped). */
  picks: MemoryPick[];
  /** Valid picks the selector returned beyond `k`. */
  overflow: MemoryPick[];
  /** What the selector said beyond its picks (ranking, model manifest, fallback, failure). */
  details: SelectionDetails;
}

/**
 * The selection step shared by `recall()` and `memdir eval`: scan every header (the lexical
 * selector ranks over all of them; the model selector trims to its own 200), leave out the
 * excluded ones BEFORE selecting so the k slots go to fresh candidates, select, and keep the
 * first `k` picks that name a scanned file. Eval calling this function (not a copy) is what keeps
 * its numbers honest about what users get.
 *
 * @example
 * const { picks } = await selectMemories({ memoryDir, query: "how do we test login?", selector, k: 5 });
 */
export async function selectMemories(options: SelectionOptions): Promise<MemorySelection> {
  const k = options.k ?? DEFAULT_RECALL_K;
  const headers = await scanHeaders(options.memoryDir, {
    signal: options.signal,
    cache: options.scanCache,
    memdir: options.memdir,
  });
  const fresh: MemoryHeader[] = [];
  const excluded: MemoryHeader[] = [];
  for (const header of headers) (options.exclude?.(header) ? excluded : fresh).push(header);
  if (fresh.length === 0 || k <= 0) return { headers, fresh, excluded, picks: [], overflow: [], details: {} };
  throwIfAborted(options.signal, "recall");
  const request = {
    // Every selector, the model's side query too, gets at most the cut query (docs/design.md#long-input).
    query: cutQuery(options.query),
    headers: fresh,
    k,
    memoryDir: options.memoryDir,
    ...(options.memdir ? { memdir: options.memdir } : {}),
    recentTools: options.recentTools ?? [],
    ...(options.explain ? { explain: true } : {}),
    now: (options.now ?? Date.now)(),
  };
  const { picks: raw, ...details } = await options.selector.select(request, options.signal);
  const known = headersNamed(fresh, raw);
  const seen = new Set<string>();
  const valid: MemoryPick[] = [];
  for (const pick of raw) {
    if (!known.has(pick.file) || seen.has(pick.file)) continue; // names outside the manifest are dropped (docs/design.md#selectors)
    seen.add(pick.file);
    valid.push(pick);
  }
  return { headers, fresh, excluded, picks: valid.slice(0, k), overflow: valid.slice(k), details };
}

/**
 * Recalls the memories relevant to `query` and turns them into the hidden messages an agent
 * sends with its next model request (docs/design.md#recall-pipeline): scan → drop already read/surfaced → select →
 * keep at most k → read each body capped (200 lines / 4096 bytes) → stay inside the session
 * budget → one `<system-reminder>` user message per memory. The result also says which
 * candidates were skipped and why; {@link explainRecall} lists every candidate for
 * `memdir recall --explain`.
 *
 * Throws only when the scan or the selector throws or `signal` aborts; an unreadable memory is
 * skipped, not fatal.
 *
 * @example
 * const result = await recall({ memoryDir, query: "修复登录测试", selector: createLexicalSelector() });
 * for (const message of result.messages) console.log(message.content);
 */
export async function recall(options: RecallOptions): Promise<RecallResult> {
  const k = options.k ?? DEFAULT_RECALL_K;
  const whyExcluded = exclusionReasons(options);
  const selection = await selectMemories({
    memoryDir: options.memoryDir,
    query: options.query,
    selector: options.selector,
    k,
    signal: options.signal,
    scanCache: options.scanCache,
    memdir: options.memdir,
    recentTools: options.recentTools,
    exclude: (header) => whyExcluded(header) !== null,
    explain: options.explain,
    now: options.now,
  });
  const verdicts = verdictLog();
  for (const header of selection.excluded)
    verdicts.add(header, null, "already-read", whyExcluded(header) ?? "");
  // Only the picked files are looked up: a map of every header would be 20,000 entries per call.
  const byFile = headersNamed(selection.fresh, [...selection.picks, ...selection.overflow]);
  const links: PickLinks[] = [];
  const memories = await surfacePicks(selection.picks, byFile, options, verdicts, links);
  const linked = await bringLinked(memories, links, selection, options, verdicts);
  for (const pick of selection.overflow)
    if (!linked.has(pick.file))
      verdicts.add(
        byFile.get(pick.file) as MemoryHeader,
        pick.score,
        "beyond-k",
        `ranked below the ${k} picks`,
      );

  const { details } = selection;
  const evidence: RecallEvidence = { k, fresh: selection.fresh, judged: verdicts.judged, selection: details };
  // A ranking can mark candidates "beyond-k", which also belong in `skipped`: judge them all now.
  // Without one, every other candidate is "below-floor" or "cap", neither skipped, so their
  // verdicts are only built when someone asks (`explainRecall`).
  if (details.ranking !== undefined && details.ranking.length > 0) judgeTheRest(evidence, verdicts);
  return {
    query: options.query,
    selector: options.selector.name,
    selected: memories.map(({ file, path, score, linkedFrom }) =>
      linkedFrom === undefined ? { file, path, score } : { file, path, score, linkedFrom },
    ),
    messages: memories.map((memory) => memory.message),
    skipped: verdicts.skipped,
    ...(details.fallback !== undefined ? { fallback: details.fallback } : {}),
    ...(details.failure !== undefined ? { modelFailure: describeFailure(details.failure) } : {}),
    memories,
    evidence,
  };
}

/** Why a header is left out before selection (already surfaced or read), or null. */
function exclusionReasons(options: RecallOptions): (header: MemoryHeader) => string | null {
  const surfaced = new Set(options.alreadySurfaced ?? []);
  const readFileState = options.readFileState;
  return (header) => {
    if (surfaced.has(header.path)) return "already surfaced in this conversation";
    const entry = readFileState?.get(header.path);
    if (entry)
      return entry.source === "memory" ? "already surfaced in this session" : "already read in this session";
    return null;
  };
}

/** The verdicts recall reaches, in order; the ones that drop a memory also go to `skipped`. */
function verdictLog() {
  const judged: RecallCandidate[] = [];
  const skipped: RecallResult["skipped"] = [];
  const add = (header: MemoryHeader, score: number | null, status: CandidateStatus, reason: string) => {
    judged.push({ file: header.file, path: header.path, score, status, reason });
    if (status !== "picked" && status !== "linked" && status !== "below-floor" && status !== "cap")
      skipped.push({ file: header.file, reason });
  };
  return { judged, skipped, add };
}

type VerdictLog = ReturnType<typeof verdictLog>;

/** Reads each pick capped and keeps those that fit the session budget, in rank order. */
async function surfacePicks(
  picks: MemoryPick[],
  byFile: Map<string, MemoryHeader>,
  options: RecallOptions,
  verdicts: VerdictLog,
  links: PickLinks[],
): Promise<SurfacedMemory[]> {
  const budgetBytes = options.budgetBytes ?? SESSION_MEMORY_BUDGET_BYTES;
  const reads = await Promise.all(
    picks.map(async (pick) => {
      const header = byFile.get(pick.file) as MemoryHeader;
      try {
        return { pick, header, read: await readMemoryCapped(header.path, { memoryDir: options.memoryDir }) };
      } catch (error) {
        return { pick, header, error: error instanceof Error ? error.message : String(error) };
      }
    }),
  );
  throwIfAborted(options.signal, "recall");
  const nowMs = (options.now ?? Date.now)();
  // Anchors resolve against the memory dir's project (read only when a pick has anchors).
  const anyAnchors = reads.some((entry) => "read" in entry && /^anchors:/m.test(entry.read?.content ?? ""));
  const projectRoot = anyAnchors ? await anchorRoot(options.memoryDir) : null;
  let bytesUsed = options.surfacedBytes ?? 0;
  const memories: SurfacedMemory[] = [];
  for (const entry of reads) {
    const { pick, header } = entry;
    if (!("read" in entry) || entry.read === undefined) {
      verdicts.add(header, pick.score, "unreadable", `could not be read: ${entry.error}`);
      continue;
    }
    const message = surfacedMemoryMessage({
      path: header.path,
      mtimeMs: savedAtMs(header),
      // A memory whose text reads as an instruction is named, not shown (src/memdir/trust/withhold.ts).
      content: await shownContent(entry.read.content),
      now: nowMs,
      notes: await vanishedAnchorNotes(entry.read.content, projectRoot),
    });
    const bytes = Buffer.byteLength(message.content as string, "utf8");
    if (bytesUsed + bytes > budgetBytes) {
      verdicts.add(
        header,
        pick.score,
        "budget",
        `over the session budget: ${bytes} bytes would bring surfaced memory to ${bytesUsed + bytes} of ${budgetBytes}`,
      );
      continue;
    }
    bytesUsed += bytes;
    verdicts.add(header, pick.score, "picked", pick.reason || "picked by the selector");
    links.push({ file: header.file, names: linkNames(entry.read.content) });
    memories.push({
      file: header.file,
      path: header.path,
      score: pick.score,
      mtimeMs: savedAtMs(header),
      truncated: entry.read.truncated,
      message,
    });
  }
  return memories;
}

/**
 * Surfaces the memories the picks link to with `[[name]]`, after them, while the session budget
 * allows (see `linked.ts`), each judged "linked"; returns their files.
 */
async function bringLinked(
  memories: SurfacedMemory[],
  links: PickLinks[],
  selection: MemorySelection,
  options: RecallOptions,
  verdicts: VerdictLog,
): Promise<Set<string>> {
  const brought = new Set<string>();
  if (links.every((pick) => pick.names.length === 0)) return brought;
  const budgetBytes = options.budgetBytes ?? SESSION_MEMORY_BUDGET_BYTES;
  let bytesUsed = options.surfacedBytes ?? 0;
  for (const memory of memories) bytesUsed += Buffer.byteLength(memory.message.content as string, "utf8");
  const found = await linkedMemories({
    links,
    fresh: selection.fresh,
    taken: new Set(selection.picks.map((pick) => pick.file)),
    bytesLeft: budgetBytes - bytesUsed,
    now: (options.now ?? Date.now)(),
  });
  for (const memory of found) {
    const { header } = memory;
    brought.add(header.file);
    verdicts.add(header, null, "linked", `brought along: ${memory.from} links to it as [[${memory.name}]]`);
    memories.push({
      file: header.file,
      path: header.path,
      score: 0,
      mtimeMs: savedAtMs(header),
      truncated: memory.truncated,
      message: memory.message,
      linkedFrom: memory.from,
    });
  }
  return brought;
}

/** Judges every fresh header no step judged yet, in scan order (so `skipped` keeps that order). */
function judgeTheRest(evidence: RecallEvidence, verdicts: VerdictLog): void {
  const judged = new Set(verdicts.judged.map((candidate) => candidate.file));
  const judge = unpickedJudge(evidence);
  for (const header of evidence.fresh) {
    if (judged.has(header.file)) continue;
    const { score, status, reason } = judge(header);
    verdicts.add(header, score, status, reason);
  }
}

/** The headers among `headers` whose file one of `picks` names, by file (one pass, small map). */
function headersNamed(headers: MemoryHeader[], picks: readonly MemoryPick[]): Map<string, MemoryHeader> {
  const named = new Map<string, MemoryHeader>();
  if (picks.length === 0) return named;
  const wanted = new Set(picks.map((pick) => pick.file));
  for (const header of headers) if (wanted.has(header.file)) named.set(header.file, header);
  return named;
}
