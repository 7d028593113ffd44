import { recordPull, undonePulls } from "../../../dream/history.ts";
import { MemdirError } from "../../../errors.ts";
import { helperChangeWatch } from "../../../helper/ask.ts";
import { syncAutoEnabled } from "../../../sync/auto-setting.ts";
import { initSyncRemote } from "../../../sync/init.ts";
import {
  type ProjectKeyChange,
  type ProjectSyncReport,
  type SyncStatus,
  syncProject,
  syncStatus,
} from "../../../sync/project.ts";
import { WAITS_FOR_REVIEW } from "../../../sync/review.ts";
import { type CommonOptions, type RegisterCommand, withCommonOptions } from "../../support/common.ts";
import { configFromOptions, locationFromOptions } from "../../support/location.ts";
import { printJson } from "../../support/output.ts";
import { terminalProgress } from "../../support/progress.ts";

interface SyncCommandOptions extends CommonOptions {
  status?: boolean;
  pull?: boolean;
  auto?: boolean;
  acceptRemote?: boolean;
  timeoutMs?: string;
}

/** How long a background (`--auto`) sync may run before it stops; the next one finishes cleanly. */
const AUTO_TIMEOUT_MS = 60_000;

/**
 * `memdir sync`: pull, merge, push the project's memory with the git remote set by `memdir sync
 * init <git-url>` (and the team remote of `--team`); `--status` says what a sync would do;
 * `--auto` is the bounded background sync `sync.auto` starts, silent when off (docs/sync.md).
 */
export const registerSyncCommand: RegisterCommand = (program, context) => {
  const sync = withCommonOptions(
    program
      .command("sync")
      .description("sync this project's memory over git (see: memdir sync init <git-url>)")
      .option("--status", "what a sync would pull and push, the conflicts to resolve, the last sync")
      .option("--pull", "merge the remote's changes in, push nothing")
      .option("--accept-remote", "merge with a remote that was rewritten (every local memory is kept)")
      .option("--auto", "the background sync of sync.auto: nothing unless it is on, never fails")
      .option("--timeout-ms <ms>", "stop after this long (the next sync finishes cleanly)"),
  ).action(async (options: SyncCommandOptions) => {
    const timeoutMs = options.timeoutMs ? Number(options.timeoutMs) : options.auto ? AUTO_TIMEOUT_MS : 0;
    if (!Number.isFinite(timeoutMs) || timeoutMs < 0)
      throw new MemdirError(
        "usage",
        `sync: --timeout-ms must be a number of milliseconds, got "${options.timeoutMs}"`,
      );
    const signal = timeoutMs > 0 ? AbortSignal.timeout(timeoutMs) : undefined;
    try {
      const location = await locationFromOptions(options, context);
      if (options.auto && !syncAutoEnabled(configFromOptions(options, context, location))) return;
      if (options.status) {
        const status = await syncStatus(location, { signal, undonePulls });
        if (options.json) printJson(context.io, status);
        else context.io.stdout(formatStatus(status));
        return;
      }
      const report = await syncProject(location, {
        pullOnly: options.pull,
        acceptRemote: options.acceptRemote,
        memoryMode: configFromOptions(options, context, location).memoryMode,
        recordPull,
        undonePulls,
        signal,
        // A running memory helper vouches for a memory dir nothing changed in since the last
        // sync, which then reads none of its files (docs/design.md#sync-stat-cache).
        changeWatch: helperChangeWatch(context.env),
        // The background sync (--auto) runs from a hook: a host's terminal is not its own.
        ...(options.auto ? { waitMs: timeoutMs } : { progress: terminalProgress(context, options) }),
      });
      if (options.json) printJson(context.io, report);
      else context.io.stdout(formatReport(report));
    } catch (error) {
      // The background sync never fails anything: one line on stderr (nobody reads it), exit 0.
      if (!options.auto) throw error;
      context.io.stderr(`${error instanceof Error ? error.message.split("\n")[0] : String(error)}\n`);
    }
  });

  withCommonOptions(
    sync
      .command("init")
      .description("set the git remote memory syncs with (--team: this project's team/ memory)")
      .argument("<git-url>", "a repository you control (ssh, https or file URL); credentials stay with git")
      .option("--team", "the remote for this project's team/ memory"),
  ).action(async (url: string, own: CommonOptions & { team?: boolean }) => {
    // `--json`, `--cwd`… may land on `sync` itself (`memdir sync init … --json`): both count.
    const options = { ...(sync.opts() as CommonOptions), ...own };
    const location = await locationFromOptions(options, context);
    const { remote, team, projectKey } = await initSyncRemote(location, url, { team: options.team });
    if (options.json) printJson(context.io, { remote, team, ...(projectKey ? { projectKey } : {}) });
    else
      context.io.stdout(
        projectKey
          ? `team memory of ${projectKey} syncs with ${remote}\n`
          : `memory syncs with ${remote}; run memdir sync (or set "sync": {"auto": true} in settings)\n`,
      );
  });
};

/**
 * A skipped file's reason when it waits in the inbox: held by the writer's quarantine
 * (src/memdir/write/write-checks.ts), or proposed under review mode (WAITS_FOR_REVIEW).
 */
const WAITS_IN_INBOX = new RegExp(
  `\\bwaits for the user's review in the inbox as \\S+$|^${WAITS_FOR_REVIEW}$`,
);

function formatReport(report: ProjectSyncReport): string {
  const lines = [`synced with ${report.remote}: pulled ${report.pulled}, pushed ${report.pushed}`];
  for (const file of report.conflicts)
    lines.push(`conflict: ${file} (the other version of a memory; merge what you need, then delete it)`);
  // A file held for review is held again by every sync until the user settles it: one line names
  // them all, where one long line each repeated the reason on every run; the inbox shows each and why.
  const waiting: string[] = [];
  for (const { file, reason } of report.skipped)
    if (WAITS_IN_INBOX.test(reason)) waiting.push(file);
    else lines.push(`skipped: ${file}: ${reason}`);
  if (waiting.length > 0)
    lines.push(`held for review: ${waiting.join(", ")} (memdir inbox shows each and why)`);
  if (report.team) lines.push(formatReport(report.team).trimEnd().replace(/^/gm, "team: "));
  if (report.keyChanged) lines.push(keyChangeLine(report.keyChanged, "this sync used the new one"));
  return `${lines.join("\n")}\n`;
}

/**
 * Why memory synced before may not meet this sync: the project's key names its folder in the sync
 * repository, and it changed (docs/design.md#project-identity).
 */
function keyChangeLine(change: ProjectKeyChange, what: string): string {
  return (
    `project key changed: ${change.from} → ${change.to} (its origin remote was added or changed); ${what}. ` +
    `The sync repository keeps ${change.from}'s folder, which clones that still have the old origin (or none) sync with: ` +
    "give every clone the same origin URL to share one folder"
  );
}

function formatStatus(status: SyncStatus): string {
  const lines = [
    `remote: ${status.remote}${status.reachable ? "" : " (unreachable: figures as of the last fetch)"}`,
    `ahead: ${status.ahead} file(s) to push, behind: ${status.behind} file(s) to pull`,
    ...(status.held > 0
      ? [`held: ${status.held} file(s) from the remote wait for review (memdir inbox)`]
      : []),
    `last sync: ${status.lastSync ?? "never"}`,
    ...(status.rewritten
      ? [
          "rewritten: the remote was rewritten or reset since this project last synced; memdir sync refuses " +
            "(run memdir sync --accept-remote to merge with it as it is now: every local memory kept, differences as conflict files)",
        ]
      : []),
    ...status.conflicts.map((file) => `conflict: ${file}`),
    ...(status.keyChanged ? [keyChangeLine(status.keyChanged, "the next sync uses the new one")] : []),
  ];
  if (status.team) lines.push(formatStatus(status.team).trimEnd().replace(/^/gm, "team: "));
  return `${lines.join("\n")}\n`;
}
