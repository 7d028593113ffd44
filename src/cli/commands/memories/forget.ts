import { recordChange } from "../../../dream/history.ts";
import { MemdirError } from "../../../errors.ts";
import { findMemoryToForget } from "../../../extract/explicit.ts";
import { cleanStatement, parseExplicitMemory } from "../../../extract/explicit-intent.ts";
import { INDEX_FILE } from "../../../memdir/format/index-file.ts";
import { removeMemory } from "../../../memdir/write/write.ts";
import {
  type CommonOptions,
  type RegisterCommand,
  usageError,
  withCommonOptions,
} from "../../support/common.ts";
import { locationFromOptions, memdirForCommand } from "../../support/location.ts";
import { printJson } from "../../support/output.ts";

interface ForgetOptions extends CommonOptions {
  yes?: boolean;
}

/**
 * `memdir forget "<text>"`: finds the memory that best matches the text, shows it, and removes it
 * (file and index line) after a yes on stdin, or at once with `--yes`; recorded in the history, so
 * `memdir undo` brings it back.
 */
export const registerForgetCommand: RegisterCommand = (program, context) => {
  withCommonOptions(
    program
      .command("forget")
      .description("remove the memory that best matches the text (asks first unless --yes)")
      .argument("<text...>", "words that identify the memory")
      .option("-y, --yes", "remove without asking"),
  ).action(async (words: string[], options: ForgetOptions) => {
    const raw = words.join(" ").trim();
    if (raw === "") throw usageError("forget: say which memory to forget");
    const intent = parseExplicitMemory(raw);
    const query = intent?.kind === "forget" ? intent.query : cleanStatement(raw);
    const location = await locationFromOptions(options, context);
    const match = await findMemoryToForget(
      query,
      location.memoryDir,
      memdirForCommand(location, context, options),
    );
    if (!match)
      throw new MemdirError("not-found", `memdir: forget: no memory matches ${JSON.stringify(query)}`);
    // Words that name several memories equally say none of them: removing the first would be a guess.
    if (match.alsoMatching)
      throw new MemdirError(
        "invalid-input",
        `memdir: forget: ${match.alsoMatching.length + 1} memories match ${JSON.stringify(query)} equally ` +
          `(${[match.file, ...match.alsoMatching].join(", ")}); nothing forgotten: add words that name one, or memdir rm <file>`,
      );
    if (!options.yes) {
      context.io.stderr(`Forget ${match.file}${match.description ? ` (${match.description})` : ""}? [y/N] `);
      const answer = context.io.stdin ? (await context.io.stdin()).trim().toLowerCase() : "";
      if (answer !== "y" && answer !== "yes") {
        context.io.stderr("Kept it.\n");
        if (options.json) printJson(context.io, { removed: false, file: match.file, path: match.path });
        context.setExitCode(1);
        return;
      }
    }
    // One history entry, so `memdir undo` brings the memory and its index line back (docs/design.md#undo).
    await recordChange(
      location.memoryDir,
      {
        kind: "forget",
        command: "memdir forget",
        message: `forgot ${match.file}`,
        files: [match.file, INDEX_FILE],
        lock: true,
      },
      () => removeMemory(location.memoryDir, match.file),
    );
    if (options.json) printJson(context.io, { removed: true, file: match.file, path: match.path });
    else context.io.stdout(`Forgot ${match.file}${match.description ? `: ${match.description}` : ""}\n`);
  });
};
