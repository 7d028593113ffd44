import { spawnSync } from "node:child_process";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { Command } from "commander";
import {
  acceptProposal,
  changeDiff,
  type InboxItem,
  inboxItem,
  listInbox,
  rejectProposal,
} from "../../../dream/inbox.ts";
import { MemdirError } from "../../../errors.ts";
import { loadProposal, type Proposal } from "../../../memdir/write/proposal-store.ts";
import {
  type CommandContext,
  type CommonOptions,
  type RegisterCommand,
  usageError,
  withCommonOptions,
} from "../../support/common.ts";
import { configFromOptions, locationFromOptions } from "../../support/location.ts";
import { printable, printJson } from "../../support/output.ts";
import { formatHistoryEntry } from "./history.ts";

interface AcceptOptions extends CommonOptions {
  all?: boolean;
  edit?: boolean;
}

const MARK = { add: "+", update: "~", delete: "-" } as const;

function itemLines(item: InboxItem): string {
  const lines = [`${item.id}  ${item.source}  ${item.created}  ${item.summary}`];
  if (item.reason) lines.push(`    held: ${item.reason}`);
  for (const change of item.changes)
    lines.push(`    ${MARK[change.action]} ${change.file}  ${change.description}`);
  return lines.join("\n");
}

async function inboxContext(options: CommonOptions, context: CommandContext) {
  const location = await locationFromOptions(options, context);
  const config = configFromOptions(options, context, location);
  return { memoryDir: location.memoryDir, expiryDays: config.inboxExpiryDays };
}

/**
 * Opens the user's editor (`$VISUAL`, else `$EDITOR`) on each memory text the proposal would
 * write and returns the edited texts by file. An editor that fails accepts nothing.
 */
async function editProposedTexts(
  proposal: Proposal,
  context: CommandContext,
): Promise<Record<string, string>> {
  const editor = context.env.VISUAL?.trim() || context.env.EDITOR?.trim();
  if (!editor) throw usageError("inbox: accept --edit needs $EDITOR (or $VISUAL) set");
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), "memdir-inbox-"));
  const edits: Record<string, string> = {};
  try {
    for (const change of proposal.changes) {
      if (change.after === null || change.file === "MEMORY.md") continue;
      const file = path.join(dir, path.posix.basename(change.file));
      await fs.writeFile(file, change.after);
      // Through the shell, as git does: `$EDITOR` may carry arguments (`code --wait`).
      const run = spawnSync(`${editor} "${file.replace(/(["\\$`])/g, "\\$1")}"`, {
        shell: true,
        stdio: "inherit",
        env: context.env,
      });
      if (run.status !== 0)
        throw new MemdirError(
          "invalid-input",
          `inbox: the editor (${editor}) exited with ${run.status ?? run.signal}; nothing was accepted`,
        );
      edits[change.file] = await fs.readFile(file, "utf8");
    }
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
  return edits;
}

function registerShow(inbox: Command, context: CommandContext): void {
  withCommonOptions(
    inbox
      .command("show")
      .description("show what a proposal would change, as a diff")
      .argument("<id>", "proposal id"),
  ).action(async (id: string, _options: CommonOptions, command: Command) => {
    // The parent's options too (`--json`, `--dir` are `inbox`'s as well as the subcommand's).
    const options = command.optsWithGlobals<CommonOptions>();
    const { memoryDir } = await inboxContext(options, context);
    const proposal = await loadProposal(memoryDir, id);
    if (options.json) {
      printJson(context.io, { ...inboxItem(proposal), diff: proposal.changes.map(changeDiff) });
      return;
    }
    context.io.stdout(
      printable(`${itemLines(inboxItem(proposal))}\n\n${proposal.changes.map(changeDiff).join("\n\n")}\n`),
    );
  });
}

function registerAccept(inbox: Command, context: CommandContext): void {
  withCommonOptions(
    inbox
      .command("accept")
      .description("write a proposal's changes (undo with memdir undo)")
      .argument("[id]", "proposal id")
      .option("--all", "accept every waiting proposal")
      .option("--edit", "open $EDITOR on the proposed text first"),
  ).action(async (id: string | undefined, _options: AcceptOptions, command: Command) => {
    const options = command.optsWithGlobals<AcceptOptions>();
    if (!id && !options.all) throw usageError("inbox: accept <id> or --all");
    if (id && options.all) throw usageError("inbox: accept takes an id or --all, not both");
    const { memoryDir, expiryDays } = await inboxContext(options, context);
    const ids = id ? [id] : (await listInbox(memoryDir, { expiryDays })).map((p) => p.id).reverse();
    const accepted: { id: string; entry: unknown }[] = [];
    for (const next of ids) {
      const edits = options.edit
        ? await editProposedTexts(await loadProposal(memoryDir, next), context)
        : undefined;
      const { entry } = await acceptProposal(memoryDir, next, { edits });
      accepted.push({ id: next, entry });
      if (!options.json) {
        context.io.stdout(`accepted ${next}\n`);
        if (entry) context.io.stdout(printable(`${formatHistoryEntry(entry)}\n`));
      }
    }
    if (options.json) printJson(context.io, { accepted });
    else if (ids.length === 0) context.io.stdout("nothing waits for review\n");
  });
}

function registerReject(inbox: Command, context: CommandContext): void {
  withCommonOptions(
    inbox
      .command("reject")
      .description("drop a proposal; nothing is written")
      .argument("<id>", "proposal id"),
  ).action(async (id: string, _options: CommonOptions, command: Command) => {
    const options = command.optsWithGlobals<CommonOptions>();
    const { memoryDir } = await inboxContext(options, context);
    const rejected = await rejectProposal(memoryDir, id);
    if (options.json) printJson(context.io, { rejected: rejected.id });
    else context.io.stdout(`rejected ${rejected.id}: nothing was written\n`);
  });
}

/**
 * `memdir inbox`: the proposals waiting for review (docs/design.md#the-inbox) — `--json`:
 * `[{id, source, created, changes: [{file, action, description}], summary, reason?}]`;
 * `inbox show <id>` (the diff), `inbox accept <id>|--all [--edit]`, `inbox reject <id>`.
 */
export const registerInboxCommand: RegisterCommand = (program, context) => {
  const inbox = withCommonOptions(
    program.command("inbox").description("review memories waiting for approval (list, show, accept, reject)"),
  ).action(async (options: CommonOptions) => {
    const { memoryDir, expiryDays } = await inboxContext(options, context);
    const items = (await listInbox(memoryDir, { expiryDays })).map(inboxItem);
    if (options.json) {
      printJson(
        context.io,
        items.map(({ id, source, created, changes, summary, reason }) => ({
          id,
          source,
          created,
          changes,
          summary,
          ...(reason ? { reason } : {}),
        })),
      );
      return;
    }
    if (items.length === 0) {
      context.io.stdout("nothing waits for review\n");
      return;
    }
    context.io.stdout(printable(`${items.map(itemLines).join("\n")}\n`));
    context.io.stdout("memdir inbox show <id> · accept <id> [--edit] · accept --all · reject <id>\n");
  });
  registerShow(inbox, context);
  registerAccept(inbox, context);
  registerReject(inbox, context);
};
