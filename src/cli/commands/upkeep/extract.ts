import fs from "node:fs/promises";
import path from "node:path";
import { loadTranscript } from "../../../agent/transcript.ts";
import { changeRecorder } from "../../../dream/history.ts";
import { MemdirError } from "../../../errors.ts";
import { saveTranscriptCursor } from "../../../extract/cursor-store.ts";
import { extractionTicket, runOneAtATime } from "../../../extract/extraction-queue.ts";
import { extractionNotice } from "../../../extract/run-extraction.ts";
import { extractTranscript, type TranscriptExtraction } from "../../../extract/transcript-extraction.ts";
import { takeFinalMessage } from "../../../hooks/stop.ts";
import { projectOf } from "../../../memdir/location/paths.ts";
import { requireModel } from "../../../model/factory.ts";
import { startAutoSync } from "../../support/auto-sync.ts";
import {
  type CommandContext,
  type CommonOptions,
  type ModelOptions,
  type RegisterCommand,
  resolveFrom,
  usageError,
  withCommonOptions,
  withModelOptions,
} from "../../support/common.ts";
import { configFromOptions, locationFromOptions } from "../../support/location.ts";
import { printJson } from "../../support/output.ts";

interface ExtractOptions extends CommonOptions, ModelOptions {
  transcript?: string;
  all?: boolean;
  finalMessageFile?: string;
}

/**
 * `memdir extract --transcript <session.jsonl>`: a model extraction over the messages of a stored
 * session that arrived since the last extraction of it (its cursor, kept in the memory dir's
 * `.memdir-extract/`; `--all` ignores it). One extraction at a time per memory dir: when another
 * is running, the request is queued for it and this exits 0 at once; the running one then makes
 * one trailing run. This is what `memdir hook stop` starts after every turn. Needs a model;
 * `--json` reports what was written and refused.
 */
export const registerExtractCommand: RegisterCommand = (program, context) => {
  withModelOptions(
    withCommonOptions(
      program
        .command("extract")
        .description("run one background-style memory extraction over a stored session (needs a model)")
        .option("--transcript <session.jsonl>", "the session transcript to extract memories from")
        .option("--all", "extract from the whole transcript, not only what arrived since the last extraction")
        .option(
          "--final-message-file <file>",
          "the final assistant message a stop hook received and the transcript lacks (read, then removed)",
        ),
    ),
  ).action(async (options: ExtractOptions) => {
    if (!options.transcript) throw usageError("extract: --transcript <session.jsonl> is required");
    const cwd = resolveFrom(context, options.cwd ?? ".");
    const location = await locationFromOptions(options, context);
    const config = configFromOptions(options, context, location);
    if (config.memoryMode === "manual") {
      // docs/design.md#memory-modes: in manual mode only explicit saves write.
      if (options.json) printJson(context.io, { ...emptyReport(), status: "skipped", reason: "manual" });
      else context.io.stdout("memoryMode is manual: no extraction (only explicit saves write memories)\n");
      return;
    }
    const client = requireModel(config.model);
    // Read before queueing, so a missing or empty transcript fails here, in front of the user.
    const { transcript, final, lastReal } = readTranscriptAndFinal(
      cwd,
      options.transcript,
      options.finalMessageFile,
    );

    const memoryDir = location.memoryDir;
    await fs.mkdir(memoryDir, { recursive: true });
    const ticket = extractionTicket({
      transcript: transcript.path,
      cwd: projectOf(location) ?? cwd,
      all: options.all,
    });
    const outcome = await runOneAtATime(
      memoryDir,
      ticket,
      (next) =>
        extractTranscript({
          memoryDir,
          transcript: next.transcript,
          cwd: next.cwd,
          client,
          all: next.all,
          memoryMode: config.memoryMode,
          // Each run that writes is one history entry `memdir undo` takes back (docs/design.md#undo).
          record: changeRecorder({ command: "memdir extract" }),
          // Our own transcript was just read; queued ones are read when their turn comes.
          messages: next.id === ticket.id ? transcript.messages : undefined,
        }),
      { log: (line) => context.io.stderr(`${line}\n`) },
    );

    if (outcome.status === "queued") {
      const holder = outcome.holder === null ? "" : ` (pid ${outcome.holder})`;
      if (options.json) printJson(context.io, { ...emptyReport(), status: "queued" });
      else
        context.io.stdout(
          `Another extraction is running for this memory dir${holder}: queued, it runs this one when it is done\n`,
        );
      return;
    }
    const own = outcome.own;
    if ([own, ...outcome.trailing].some((run) => reportJson(run).written.length > 0))
      await startAutoSync("after-save", location, config, context.env);
    // The cursor stays on the transcript's own last message: the final turn's real line arrives
    // later, and a cursor on our stand-in would make the next run count the whole session as new.
    if (final && own.cursor === final.id && lastReal !== null)
      await saveTranscriptCursor(memoryDir, transcript.path, lastReal);
    if (options.json) {
      printJson(context.io, {
        ...reportJson(own),
        trailing: outcome.trailing.map((run) => ({ transcript: run.transcript, ...reportJson(run) })),
      });
    } else {
      printReport(own, context, "");
      for (const run of outcome.trailing) printReport(run, context, `then, for ${run.transcript}: `);
    }
    if (own.status === "failed") {
      if (!options.json) context.io.stderr(`memdir: extract: ${own.error?.message ?? "failed"}\n`);
      context.setExitCode(1);
    }
  });
};

/**
 * The transcript to extract from, with the host's copy of the final turn added when its
 * transcript did not hold it yet at the stop hook; `lastReal` is the transcript's own last message.
 */
function readTranscriptAndFinal(cwd: string, transcriptFile: string, finalMessageFile: string | undefined) {
  const transcript = loadTranscript(path.resolve(cwd, transcriptFile));
  const final = finalMessageFile
    ? takeFinalMessage(path.resolve(cwd, finalMessageFile), transcript.path)
    : null;
  const lastReal = transcript.messages.at(-1)?.id ?? null;
  if (final) transcript.messages.push(final);
  if (transcript.messages.length === 0)
    throw new MemdirError("invalid-input", `memdir: extract: ${transcript.path} holds no messages`);
  return { transcript, final, lastReal };
}

function emptyReport() {
  return {
    ok: true,
    written: [] as string[],
    saved: [] as string[],
    updated: [] as string[],
    refused: [],
    turns: 0,
  };
}

/** The `--json` object of one run: the keys of the first version, then status, new count and cursor. */
function reportJson(run: TranscriptExtraction) {
  const result = run.result;
  return {
    ...emptyReport(),
    ok: run.status !== "failed",
    ...(result
      ? {
          written: result.written,
          saved: result.saved,
          updated: result.updated,
          refused: result.refused.map((refusal) => ({ path: refusal.path, reason: refusal.reason })),
          turns: result.turns,
        }
      : {}),
    ...(run.error ? { error: run.error.message } : {}),
    status: run.status,
    newMessages: run.newMessages,
    cursor: run.cursor,
  };
}

function printReport(run: TranscriptExtraction, context: CommandContext, prefix: string): void {
  for (const refusal of run.result?.refused ?? [])
    context.io.stderr(`refused ${refusal.tool} ${JSON.stringify(refusal.path)}: ${refusal.reason}\n`);
  if (run.status === "up-to-date") context.io.stdout(`${prefix}Nothing new since the last extraction\n`);
  else if (run.status === "skipped")
    context.io.stdout(`${prefix}Skipped: the agent saved memories itself since the last extraction\n`);
  else if (run.status === "done" && run.result) {
    const notice = extractionNotice(run.result) ?? "Nothing new to remember";
    const files = run.result.written.length > 0 ? `: ${run.result.written.join(", ")}` : "";
    context.io.stdout(`${prefix}${notice}${files}\n`);
  } else if (prefix !== "")
    context.io.stderr(`memdir: extract: ${prefix}${run.error?.message ?? "failed"}\n`);
}
