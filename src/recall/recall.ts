import { MemdirError } from "../errors.ts";
import type { Memdir } from "../memdir/instance.ts";
import { readMemoryCapped } from "../memdir/read.ts";
import { type HeaderCache, scanHeaders } from "../memdir/scan.ts";
import type { Clock, MemoryHeader, Message, ReadFileState } from "../types.ts";
import { SESSION_MEMORY_BUDGET_BYTES } from "./budget.ts";
import type { SelectorTrace, TracedSelectorOptions } from "./select-hybrid.ts";
import { MODEL_MANIFEST_LIMIT, modelSelectionDetails } from "./select-model.ts";
import type { Pick, Selector } from "./selector.ts";
import { surfacedMemoryMessage } from "./surface.ts";

/** At most this many memories per recall (docs/design.md#recall-pipeline). */
export const DEFAULT_RECALL_K = 5;

/** Why a candidate was or was not surfaced (`memdir recall --explain`). */
export type CandidateStatus =
  | "picked"
  | "below-floor"
  | "beyond-k"
  | "already-read"
  | "budget"
  | "cap"
  | "unreadable";

/** One memory the recall considered. */
export interface RecallCandidate {
  file: string;
  path: string;
  /** The selector's score (or the lexical pre-rank score); `null` when nothing scored it. */
  score: number | null;
  status: CandidateStatus;
  reason: string;
}

/** One memory that made it into `messages`. */
export interface SurfacedMemory {
  file: string;
  path: string;
  score: number;
  mtimeMs: number;
  truncated: false | "lines" | "bytes";
  /** The hidden user message carrying it. */
  message: Message;
}

export interface RecallResult {
  query: string;
  /** The selector's name (`lexical`, `model`, `hybrid`, or the caller's). */
  selector: string;
  selected: { file: string; path: string; score: number }[];
  /** Hidden user messages (`isMeta: true`), one per selected memory, in rank order. */
  messages: Message[];
  /** Memories dropped on the way: already read/surfaced, over the budget, beyond k, unreadable. */
  skipped: { file: string; reason: string }[];
  /** Every memory considered, with its status (complete scores only with `explain`). */
  candidates: RecallCandidate[];
  /** Set when the selector fell back (e.g. hybrid: the model failed, lexical picks used). */
  fallback?: string;
  /** Set when the model selector gave no usable answer (so the selection is empty, not "nothing helps"). */
  modelFailure?: string;
  /** The selected memories with their messages, for consumers that de-duplicate per path. */
  memories: SurfacedMemory[];
}

export interface RecallOptions {
  /** Absolute memory directory to recall from. */
  memoryDir: string;
  /** The query: for the prefetch, the last real user message's text only. */
  query: string;
  selector: Selector;
  /** Shown in the result and `--explain` (`lexical`, `model`, `hybrid`). */
  selectorName?: string;
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
   * Score every candidate for `--explain`. With the lexical selector this ranks a second time
   * with no `k` limit; the picks themselves never change.
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
  /** Filled by selectors that can say more (hybrid: fallback, full ranking, model manifest). */
  trace?: SelectorTrace;
}

export interface Selection {
  /** Every header in the memory dir, newest first. */
  headers: MemoryHeader[];
  /** Headers the selector saw (not excluded). */
  fresh: MemoryHeader[];
  /** Headers left out by `exclude`. */
  excluded: MemoryHeader[];
  /** At most `k` valid picks, best first (unknown files and duplicates dropped). */
  picks: Pick[];
  /** Valid picks the selector returned beyond `k`. */
  overflow: Pick[];
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
export async function selectMemories(options: SelectionOptions): Promise<Selection> {
  const k = options.k ?? DEFAULT_RECALL_K;
  const headers = await scanHeaders(options.memoryDir, {
    signal: options.signal,
    cache: options.scanCache,
    memdir: options.memdir,
  });
  const fresh: MemoryHeader[] = [];
  const excluded: MemoryHeader[] = [];
  for (const header of headers) (options.exclude?.(header) ? excluded : fresh).push(header);
  if (fresh.length === 0 || k <= 0) return { headers, fresh, excluded, picks: [], overflow: [] };
  throwIfAborted(options.signal);
  const selectorOptions: TracedSelectorOptions = {
    k,
    memoryDir: options.memoryDir,
    signal: options.signal,
    recentTools: options.recentTools ?? [],
    trace: options.trace,
  };
  const raw = await options.selector(options.query, fresh, selectorOptions);
  const failure = modelSelectionDetails(raw)?.failure;
  if (failure && options.trace) options.trace.modelFailure = `${failure.kind}: ${failure.message}`;
  const known = headersNamed(fresh, raw);
  const seen = new Set<string>();
  const valid: Pick[] = [];
  for (const pick of raw) {
    if (!known.has(pick.file) || seen.has(pick.file)) continue; // names outside the manifest are dropped (docs/design.md#selectors)
    seen.add(pick.file);
    valid.push(pick);
  }
  return { headers, fresh, excluded, picks: valid.slice(0, k), overflow: valid.slice(k) };
}

/**
 * Recalls the memories relevant to `query` and turns them into the hidden messages an agent
 * sends with its next model request (docs/design.md#recall-pipeline): scan → drop already read/surfaced → select →
 * keep at most k → read each body capped (200 lines / 4096 bytes) → stay inside the session
 * budget → one `<system-reminder>` user message per memory. The result also says which
 * candidates were skipped and why, for `memdir recall --explain`.
 *
 * Throws only when the scan or the selector throws or `signal` aborts; an unreadable memory is
 * skipped, not fatal.
 *
 * @example
 * const result = await recall({ memoryDir, query: "修复登录测试", selector: createLexicalSelector(), selectorName: "lexical" });
 * for (const message of result.messages) console.log(message.content);
 */
export async function recall(options: RecallOptions): Promise<RecallResult> {
  const k = options.k ?? DEFAULT_RECALL_K;
  const now = options.now ?? Date.now;
  const budgetBytes = options.budgetBytes ?? SESSION_MEMORY_BUDGET_BYTES;
  const selectorName = options.selectorName ?? "custom";
  const surfaced = new Set(options.alreadySurfaced ?? []);
  const readFileState = options.readFileState;
  const exclusionReason = (header: MemoryHeader): string | null => {
    if (surfaced.has(header.path)) return "already surfaced in this conversation";
    const entry = readFileState?.get(header.path);
    if (entry)
      return entry.source === "memory" ? "already surfaced in this session" : "already read in this session";
    return null;
  };
  const trace: SelectorTrace = {};
  const selection = await selectMemories({
    memoryDir: options.memoryDir,
    query: options.query,
    selector: options.selector,
    k,
    signal: options.signal,
    scanCache: options.scanCache,
    memdir: options.memdir,
    recentTools: options.recentTools,
    exclude: (header) => exclusionReason(header) !== null,
    trace,
  });

  // Only the picked files are looked up: a map of every header would be 20,000 entries per call.
  const byFile = headersNamed(selection.fresh, [...selection.picks, ...selection.overflow]);
  const verdicts = new Map<string, RecallCandidate>();
  const skipped: RecallResult["skipped"] = [];
  const memories: SurfacedMemory[] = [];
  const setVerdict = (
    header: MemoryHeader,
    score: number | null,
    status: CandidateStatus,
    reason: string,
  ) => {
    verdicts.set(header.file, { file: header.file, path: header.path, score, status, reason });
    if (status !== "picked" && status !== "below-floor" && status !== "cap")
      skipped.push({ file: header.file, reason });
  };

  for (const header of selection.excluded)
    setVerdict(header, null, "already-read", exclusionReason(header) ?? "");

  let bytesUsed = options.surfacedBytes ?? 0;
  const reads = await Promise.all(
    selection.picks.map(async (pick) => {
      const header = byFile.get(pick.file) as MemoryHeader;
      try {
        return { pick, header, read: await readMemoryCapped(header.path) };
      } catch (error) {
        return { pick, header, error: error instanceof Error ? error.message : String(error) };
      }
    }),
  );
  throwIfAborted(options.signal);
  const nowMs = now();
  for (const entry of reads) {
    const { pick, header } = entry;
    if (!("read" in entry) || entry.read === undefined) {
      setVerdict(header, pick.score, "unreadable", `could not be read: ${entry.error}`);
      continue;
    }
    const message = surfacedMemoryMessage({
      path: header.path,
      mtimeMs: header.mtimeMs,
      content: entry.read.content,
      now: nowMs,
    });
    const bytes = Buffer.byteLength(message.content as string, "utf8");
    if (bytesUsed + bytes > budgetBytes) {
      setVerdict(
        header,
        pick.score,
        "budget",
        `over the session budget: ${bytes} bytes would bring surfaced memory to ${bytesUsed + bytes} of ${budgetBytes}`,
      );
      continue;
    }
    bytesUsed += bytes;
    setVerdict(header, pick.score, "picked", pick.reason || "picked by the selector");
    memories.push({
      file: header.file,
      path: header.path,
      score: pick.score,
      mtimeMs: header.mtimeMs,
      truncated: entry.read.truncated,
      message,
    });
  }
  for (const pick of selection.overflow) {
    const header = byFile.get(pick.file) as MemoryHeader;
    setVerdict(header, pick.score, "beyond-k", `ranked below the ${k} picks`);
  }

  const ranking = options.explain
    ? await explainRanking(options, selectorName, selection, trace)
    : trace.ranking;
  const rankScores = new Map((ranking ?? []).map((pick, index) => [pick.file, { pick, rank: index + 1 }]));
  const shown = trace.shownToModel
    ? new Set(trace.shownToModel)
    : selectorName === "model"
      ? new Set(selection.fresh.slice(0, MODEL_MANIFEST_LIMIT).map((header) => header.file))
      : null;
  const modelInvolved = selectorName === "model" || selectorName === "hybrid";
  const modelDecided = modelInvolved && trace.fallback === undefined && trace.modelFailure === undefined;
  const judgeRest = () => {
    for (const header of selection.fresh) {
      if (verdicts.has(header.file)) continue;
      const ranked = rankScores.get(header.file);
      const score = ranked?.pick.score ?? null;
      if (shown && !shown.has(header.file)) {
        setVerdict(header, score, "cap", `not among the ${MODEL_MANIFEST_LIMIT} headers shown to the model`);
      } else if (trace.modelFailure !== undefined && trace.fallback === undefined) {
        setVerdict(header, score, "below-floor", `no selection: the model gave no usable answer`);
      } else if (modelDecided) {
        setVerdict(header, score, "below-floor", "not chosen by the model");
      } else if (ranked) {
        setVerdict(header, score, "beyond-k", `rank ${ranked.rank}, below the ${k} picks`);
      } else {
        setVerdict(header, null, "below-floor", "no match above the selector's relevance floor");
      }
    }
    return orderCandidates([...verdicts.values()]);
  };

  const result: RecallResult = {
    query: options.query,
    selector: selectorName,
    selected: memories.map(({ file, path, score }) => ({ file, path, score })),
    messages: memories.map((memory) => memory.message),
    skipped,
    candidates: [],
    ...(trace.fallback !== undefined ? { fallback: trace.fallback } : {}),
    ...(trace.modelFailure !== undefined ? { modelFailure: trace.modelFailure } : {}),
    memories,
  };
  if (rankScores.size > 0) {
    // A ranking can mark candidates "beyond-k", which also belong in `skipped`: judge now.
    result.candidates = judgeRest();
    return result;
  }
  // Without a ranking every remaining candidate is "below-floor" or "cap", neither of which is
  // skipped, so their verdicts (one object per memory, 20,000 at 20,000 memories, then sorted) are
  // only built when someone reads `candidates` (`--explain`, `--json`). The getter is enumerable,
  // so JSON and spreads see the same field as before.
  let candidates: RecallCandidate[] | undefined;
  Object.defineProperty(result, "candidates", {
    enumerable: true,
    configurable: true,
    get: () => {
      candidates ??= judgeRest();
      return candidates;
    },
    set: (value: RecallCandidate[]) => {
      candidates = value;
    },
  });
  return result;
}

/** The headers among `headers` whose file one of `picks` names, by file (one pass, small map). */
function headersNamed(headers: MemoryHeader[], picks: readonly Pick[]): Map<string, MemoryHeader> {
  const named = new Map<string, MemoryHeader>();
  if (picks.length === 0) return named;
  const wanted = new Set(picks.map((pick) => pick.file));
  for (const header of headers) if (wanted.has(header.file)) named.set(header.file, header);
  return named;
}

/** Full ranking for `--explain`: the selector's own trace, else a second, unlimited lexical pass. */
async function explainRanking(
  options: RecallOptions,
  selectorName: string,
  selection: Selection,
  trace: SelectorTrace,
): Promise<Pick[] | undefined> {
  if (trace.ranking) return trace.ranking;
  if (selectorName !== "lexical" || selection.fresh.length === 0) return undefined;
  // The lexical selector is deterministic and cheap when warm: asking for every match above its
  // floor ranks the same way, so positions after k are exactly the "beyond k" candidates.
  return options.selector(options.query, selection.fresh, {
    k: selection.fresh.length,
    memoryDir: options.memoryDir,
    signal: options.signal,
    recentTools: options.recentTools ?? [],
  });
}

const STATUS_ORDER: Record<CandidateStatus, number> = {
  picked: 0,
  budget: 1,
  unreadable: 2,
  "beyond-k": 3,
  "already-read": 4,
  "below-floor": 5,
  cap: 6,
};

/** Picked first, then the near misses; within a status, higher scores first. */
function orderCandidates(candidates: RecallCandidate[]): RecallCandidate[] {
  return candidates.sort(
    (a, b) =>
      STATUS_ORDER[a.status] - STATUS_ORDER[b.status] ||
      (b.score ?? Number.NEGATIVE_INFINITY) - (a.score ?? Number.NEGATIVE_INFINITY) ||
      a.file.localeCompare(b.file),
  );
}

function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new MemdirError("aborted", "recall: aborted", { cause: signal.reason });
}
