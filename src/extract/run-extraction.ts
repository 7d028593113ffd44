import path from "node:path";
import { runForkedAgent } from "../agent/fork.ts";
import type { LoopEvent } from "../agent/loop.ts";
import { memoryOnlyPermissions } from "../agent/permissions.ts";
import type { ToolSpec } from "../agent/tools/spec.ts";
import { defaultTools } from "../agent/tools.ts";
import { INDEX_FILE } from "../memdir/format/index-file.ts";
import type { Memdir } from "../memdir/instance.ts";
import { formatManifest, SCAN_DEFAULT_LIMIT, scanHeaders } from "../memdir/scan/scan.ts";
import { anchorRoot } from "../memdir/trust/anchors.ts";
import type { WriteOrigin } from "../memdir/trust/provenance.ts";
import type { Proposal } from "../memdir/write/proposal-store.ts";
import { proposeChanges } from "../memdir/write/scratch.ts";
import type { ModelClient } from "../model/client.ts";
import { extractionPrompt } from "../prompts/extract.ts";
import type { ChangeRecorder, Clock, MemoryMode, Message } from "../types.ts";
import { quarantineSecondOpinion } from "./second-opinion.ts";

/** docs/design.md#the-forked-agent: the extraction agent gets at most 5 model calls. */
export const EXTRACTION_MAX_TURNS = 5;

export interface ExtractionRunOptions {
  /** The conversation so far; the fork sees all of it. */
  messages: readonly Message[];
  /** How many of them are new since the last extraction (stated in the prompt). */
  newMessageCount: number;
  memoryDir: string;
  /** The instance whose header cache the manifest scan uses (default: a private one). */
  memdir?: Memdir;
  client: ModelClient;
  model?: string;
  tools?: readonly ToolSpec[];
  /** Default {@link EXTRACTION_MAX_TURNS}. */
  maxTurns?: number;
  signal?: AbortSignal;
  now?: Clock;
  onEvent?: (event: LoopEvent) => void;
  /**
   * `auto` (default): the fork writes into the memory dir; `review`: it writes into a scratch copy
   * and the difference waits in the inbox as one proposal; `manual`: no extraction at all
   * (docs/design.md#memory-modes).
   */
  memoryMode?: MemoryMode;
  /** The session the conversation belongs to, stamped as `session:` (docs/design.md#provenance). */
  session?: string;
  /** Where anchors resolve (default: the memory dir's project marker). */
  projectRoot?: string | null;
  /**
   * Records a run that writes into the memory dir as one history entry, so `memdir undo` takes
   * back what it saved (docs/design.md#undo); the entry points pass one. Unset: unrecorded.
   */
  record?: ChangeRecorder;
}

/** A write the permission check refused, with the readable reason the model was given. */
export interface RefusedWrite {
  tool: string;
  path: string;
  reason: string;
}

/** What one extraction run did. */
export interface ExtractionRunResult {
  /** The run finished (answer given or turns used up); false when it failed or was aborted. */
  ok: boolean;
  /** Memory files created, relative to the memory dir (the index never counts). */
  saved: string[];
  /** Existing memory files changed, relative to the memory dir. */
  updated: string[];
  /** Every file written, relative to the memory dir, `MEMORY.md` included. */
  written: string[];
  refused: RefusedWrite[];
  /** Model calls made. */
  turns: number;
  /** The agent's closing line. */
  text: string;
  error?: Error;
  /** `review`: the proposal the run's writes became (null when it wrote nothing). */
  proposal?: Proposal | null;
  /** `manual`: the run did not start. */
  skipped?: "manual";
}

/**
 * The line a user sees after a run, e.g. `Saved 2 memories` or `Saved 1 memory, updated 1 memory`;
 * null when no memory file changed (an index-only edit is not news).
 *
 * @example extractionNotice({ saved: ["a.md"], updated: [] }) // "Saved 1 memory"
 */
export function extractionNotice(
  result: Pick<ExtractionRunResult, "saved" | "updated"> & { proposal?: Proposal | null },
): string | null {
  const memories = (count: number) => `${count} ${count === 1 ? "memory" : "memories"}`;
  if (result.proposal) {
    const count = result.saved.length + result.updated.length;
    return `${memories(count)} ${count === 1 ? "waits" : "wait"} for review: memdir inbox`;
  }
  const parts: string[] = [];
  if (result.saved.length > 0) parts.push(`saved ${memories(result.saved.length)}`);
  if (result.updated.length > 0) parts.push(`updated ${memories(result.updated.length)}`);
  if (parts.length === 0) return null;
  const line = parts.join(", ");
  return line[0].toUpperCase() + line.slice(1);
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

/**
 * One extraction (docs/design.md#extraction): a forked agent over the conversation plus the extraction prompt,
 * with its own tool context and abort, at most 5 turns, no transcript, and `memoryOnlyPermissions`
 * (Read/Grep/Glob anywhere, Write/Edit only inside the memory dir, through the single writer, so
 * secrets are refused too). No cursor, no coalescing: {@link createExtractor} adds those, and
 * `memdir extract` calls this directly. Never throws: failures come back in `error`.
 *
 * @example
 * const result = await runExtraction({ messages, newMessageCount: messages.length, memoryDir, client });
 * extractionNotice(result) // "Saved 1 memory"
 */
export async function runExtraction(options: ExtractionRunOptions): Promise<ExtractionRunResult> {
  const mode = options.memoryMode ?? "auto";
  if (mode === "manual") return { ...emptyResult(), ok: true, skipped: "manual" };
  const projectRoot = await anchorRoot(options.memoryDir, options.projectRoot);
  const origin: WriteOrigin = {
    source: "extraction",
    ...(options.session ? { session: options.session } : {}),
    projectRoot,
    secondOpinion: quarantineSecondOpinion(options.client, options.signal),
  };
  if (mode === "auto") {
    const run = () => runIn(options.memoryDir, options, origin);
    if (!options.record) return run();
    // Without the writer lock, as a consolidation's run: a model's turns must not block saves.
    return options
      .record(options.memoryDir, { kind: "extract", message: extractionMessage, lock: false }, run)
      .catch((error: unknown) => ({ ...emptyResult(), error: asError(error) }));
  }
  let result: ExtractionRunResult = emptyResult();
  try {
    const proposal = await proposeChanges(options.memoryDir, {
      source: "extraction",
      now: options.now,
      ...(options.session ? { session: options.session } : {}),
      run: async (scratchDir) => {
        result = await runIn(scratchDir, options, { ...origin, proposing: true });
        if (result.error) throw result.error;
        return result.text.split("\n")[0]?.slice(0, 120) || "extraction";
      },
    });
    return { ...result, proposal };
  } catch (error) {
    return { ...result, ok: false, error: asError(error) };
  }
}

/** The history entry's message: the files the run saved and updated. */
function extractionMessage(result: ExtractionRunResult | undefined): string {
  if (!result) return "extraction";
  const parts = [
    ...(result.saved.length > 0 ? [`saved ${result.saved.join(", ")}`] : []),
    ...(result.updated.length > 0 ? [`updated ${result.updated.join(", ")}`] : []),
  ];
  return parts.length > 0 ? parts.join("; ") : "extraction";
}

function emptyResult(): ExtractionRunResult {
  return { ok: false, saved: [], updated: [], written: [], refused: [], turns: 0, text: "" };
}

/** One extraction writing into `memoryDir` (the memory dir, or a scratch copy of it under review). */
async function runIn(
  memoryDir: string,
  options: ExtractionRunOptions,
  origin: WriteOrigin,
): Promise<ExtractionRunResult> {
  const result = emptyResult();
  try {
    const now = options.now ?? Date.now;
    // One scan: the manifest for the prompt (so the agent need not list the folder) and the
    // files that existed before, to tell "saved" from "updated" afterwards.
    const headers = await scanHeaders(memoryDir, {
      signal: options.signal,
      ...(memoryDir === options.memoryDir ? { memdir: options.memdir } : { cache: null }),
    });
    const existedBefore = new Set(headers.map((header) => header.file));
    // Under review the model is told of the memory dir it knows from the conversation (the main
    // agent's memory rules name it), and the tools move what it addresses there into the copy.
    const prompt = extractionPrompt({
      memoryDir: options.memoryDir,
      newMessageCount: options.newMessageCount,
      manifest: formatManifest(headers.slice(0, SCAN_DEFAULT_LIMIT)),
      today: new Date(now()).toISOString().slice(0, 10),
    });
    const run = await runForkedAgent({
      messages: options.messages,
      prompt,
      tools: options.tools ?? defaultTools,
      client: options.client,
      model: options.model,
      permissions: memoryOnlyPermissions({ memoryDir }),
      // The fork works in the memory dir: a relative path names a file there, as its refusals say
      // ("use a path relative to it"; docs/design.md#the-forked-agent).
      cwd: memoryDir,
      memoryDir,
      ...(memoryDir === options.memoryDir ? {} : { shownMemoryDir: options.memoryDir }),
      maxTurns: options.maxTurns ?? EXTRACTION_MAX_TURNS,
      signal: options.signal,
      now,
      onEvent: options.onEvent,
      origin,
    });
    result.turns = run.turns;
    result.text = run.text;
    result.refused = run.refused.map((call) => {
      const requested = (call.input as { file_path?: unknown } | null)?.file_path;
      return { tool: call.tool, path: typeof requested === "string" ? requested : "", reason: call.message };
    });
    const root = path.resolve(memoryDir);
    result.written = run.filesWritten.map((file) => path.relative(root, file).split(path.sep).join("/"));
    for (const file of result.written) {
      if (file === INDEX_FILE) continue;
      (existedBefore.has(file) ? result.updated : result.saved).push(file);
    }
    if (run.error) result.error = run.error;
    else if (run.reason === "aborted") result.error = new Error("extraction was aborted");
    else if (run.reason === "error") result.error = new Error("extraction failed");
    result.ok = result.error === undefined;
  } catch (error) {
    result.error = asError(error);
  }
  return result;
}
