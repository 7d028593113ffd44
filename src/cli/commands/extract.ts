import path from "node:path";
import { loadTranscript } from "../../agent/transcript.ts";
import { resolveConfig } from "../../config.ts";
import { MemdirError } from "../../errors.ts";
import { countNewMessages } from "../../extract/cursor.ts";
import { extractionNotice, runExtraction } from "../../extract/run-extraction.ts";
import { requireModel } from "../../model/factory.ts";
import {
  type CommonOptions,
  type ModelOptions,
  modelConfigOptions,
  usageError,
  withCommonOptions,
  withModelOptions,
} from "../common.ts";
import { locationFromOptions } from "../location.ts";
import type { RegisterCommand } from "../main.ts";
import { printJson } from "../output.ts";

interface ExtractOptions extends CommonOptions, ModelOptions {
  transcript?: string;
}

/**
 * `memdir extract --transcript <session.jsonl>`: one model extraction over a stored session
 * (after a crash, or to test a model). Needs a model; `--json` reports what was written and refused.
 */
export const registerExtractCommand: RegisterCommand = (program, context) => {
  withModelOptions(
    withCommonOptions(
      program
        .command("extract")
        .description("run one background-style memory extraction over a stored session (needs a model)")
        .option("--transcript <session.jsonl>", "the session transcript to extract memories from"),
    ),
  ).action(async (options: ExtractOptions) => {
    if (!options.transcript) throw usageError("extract: --transcript <session.jsonl> is required");
    const cwd = path.resolve(options.cwd ?? process.cwd());
    const location = await locationFromOptions(options, context);
    const config = resolveConfig({
      ...modelConfigOptions(options),
      cwd,
      root: options.root,
      env: context.env,
      home: context.env.HOME || undefined,
      projectRoot: location.projectRoot ?? cwd,
    });
    const client = requireModel(config.model);
    const transcript = loadTranscript(path.resolve(cwd, options.transcript));
    if (transcript.messages.length === 0)
      throw new MemdirError("invalid-input", `memdir: extract: ${transcript.path} holds no messages`);

    const result = await runExtraction({
      messages: transcript.messages,
      newMessageCount: countNewMessages(transcript.messages),
      memoryDir: location.memoryDir,
      client,
      cwd: location.projectRoot ?? cwd,
    });
    if (options.json) {
      printJson(context.io, {
        ok: result.ok,
        written: result.written,
        saved: result.saved,
        updated: result.updated,
        refused: result.refused.map((refusal) => ({ path: refusal.path, reason: refusal.reason })),
        turns: result.turns,
        ...(result.error ? { error: result.error.message } : {}),
      });
    } else {
      for (const refusal of result.refused)
        context.io.stderr(`refused ${refusal.tool} ${JSON.stringify(refusal.path)}: ${refusal.reason}\n`);
      if (result.ok) {
        const notice = extractionNotice(result) ?? "Nothing new to remember";
        const files = result.written.length > 0 ? `: ${result.written.join(", ")}` : "";
        context.io.stdout(`${notice}${files}\n`);
      }
    }
    if (!result.ok) {
      if (!options.json) context.io.stderr(`memdir: extract: ${result.error?.message ?? "failed"}\n`);
      context.setExitCode(1);
    }
  });
};
