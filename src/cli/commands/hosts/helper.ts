import fs from "node:fs";
import path from "node:path";
import { askHelper, startHelperIfNone } from "../../../helper/ask.ts";
import {
  DEFAULT_HELPER_IDLE_MS,
  fileStamp,
  HELPER_ENV,
  HELPER_IDLE_ENV,
  helperEnabled,
  helperPaths,
} from "../../../helper/paths.ts";
import {
  type HelperRequest,
  type HelperResult,
  type MemdirProvider,
  serveHelper,
} from "../../../helper/server.ts";
import { spawnDetachedMemdir } from "../../../hooks/spawn.ts";
import { type CommandContext, type RegisterCommand, resolveFrom, usageError } from "../../support/common.ts";
import { printJson } from "../../support/output.ts";

const ACTIONS = ["status", "start", "stop", "serve"] as const;

/**
 * `memdir helper [status|start|stop|serve]`: the optional per-user process that answers the
 * prompt and session-start hooks and `memdir list` warm, over a unix socket
 * (docs/design.md#the-memory-helper). Hooks start it; `status` says whether one runs (`--json`:
 * `{enabled, running, socket, pid, startedAt, requests, memoryDirs, preloaded}`), `stop` ends it, `serve`
 * is the helper itself (in the foreground; hooks start it detached).
 */
export const registerHelperCommand: RegisterCommand = (program, context) => {
  program
    .command("helper")
    .description("the memory helper that answers hooks warm: status | start | stop | serve")
    .argument("[action]", ACTIONS.join(" | "), "status")
    .option("--json", "machine-readable output")
    .option("--preload <memory-dir>", "serve: load this memory dir before the first prompt asks")
    .action(async (action: string, options: { json?: boolean; preload?: string }) => {
      if (!(ACTIONS as readonly string[]).includes(action))
        throw usageError(`helper: the action is one of ${ACTIONS.join(", ")}, got "${action}"`);
      const paths = helperPaths(context.env.HOME || undefined);
      const enabled = helperEnabled(context.env);
      if (paths === null) {
        context.io.stderr("memdir: helper: no helper here (no HOME, or a system without unix sockets)\n");
        context.setExitCode(1);
        return;
      }
      if (action === "serve") return serve(context, paths, enabled, options.preload);
      if (action === "start") {
        if (!enabled) throw usageError(`helper: the helper is off (${HELPER_ENV}=0)`);
        const line = await startHelperIfNone(context.env, () =>
          spawnDetachedMemdir(["helper", "serve"], context.env),
        );
        context.io.stdout(`${line ?? `a helper already answers on ${paths.socket}`}\n`);
        return;
      }
      const answer = await askHelper(paths, { op: action === "stop" ? "stop" : "status" }, 2000);
      const status = answer.kind === "answered" ? (answer.lines[0] as Record<string, unknown>) : null;
      if (options.json) {
        printJson(context.io, { enabled, running: status !== null, socket: paths.socket, ...status });
        return;
      }
      if (status === null)
        context.io.stdout(`no helper runs (${enabled ? "on" : `off: ${HELPER_ENV}=0`}; ${paths.socket})\n`);
      else if (action === "stop") context.io.stdout(`helper stopped (pid ${status.pid})\n`);
      else
        context.io.stdout(
          `helper pid ${status.pid} on ${paths.socket}: ${status.requests} requests since ${new Date(Number(status.startedAt)).toISOString()}; memory dirs: ${(status.memoryDirs as string[]).join(", ") || "none yet"}\n`,
        );
    });
};

async function serve(
  context: CommandContext,
  paths: NonNullable<ReturnType<typeof helperPaths>>,
  enabled: boolean,
  preload: string | undefined,
) {
  const main = context.main;
  if (!enabled || main === undefined) throw usageError(`helper: the helper is off (${HELPER_ENV}=0)`);
  const idle = Number(context.env[HELPER_IDLE_ENV] || DEFAULT_HELPER_IDLE_MS);
  const home = context.env.HOME ?? "";
  const entry = process.argv[1] ?? "memdir";
  // The stamp the socket's name was made from: a build replaced since then is a change.
  const { mainFile, stamp } = paths;
  // Only a stamp that could be read counts as a change (a run holding every file descriptor is not).
  // A stray rejection of a run's aborted background work must not end the helper of every session.
  process.on("unhandledRejection", () => {});
  const preloadAtStart = preload === undefined ? undefined : resolveFrom(context, preload);
  // Once, before serving: the helper holds no folder of the session that started it busy. Requests
  // never change its cwd or environment; each names its own (runHelperRequest).
  process.chdir("/");
  const reason = await serveHelper({
    paths,
    home,
    idleMs: Number.isFinite(idle) && idle > 0 ? idle : DEFAULT_HELPER_IDLE_MS,
    buildChanged: () => {
      const now = fileStamp(mainFile);
      return now !== "unknown" && now !== stamp;
    },
    run: (request, memdirs) => runHelperRequest(main, entry, request, memdirs),
    preload: preloadMemoryDir,
    preloadAtStart:
      preloadAtStart === undefined ? undefined : { memoryDir: preloadAtStart, env: { ...context.env } },
  });
  context.io.stderr(`memdir: helper: stopped: ${reason}\n`);
  // Watchers and timers of the runs may remain: the helper is done.
  process.exit(0);
}

/**
 * Loads `memoryDir` into the helper before its first prompt (docs/design.md#the-memory-helper):
 * the watched scan, the lexical index (read from the cache files) and the word vectors, by a
 * lexical recall of the newest memory's description whose answer nobody sees. Measured at 20,000
 * memories, a new helper's first prompt took ~1 s doing this itself, the next ones ~140 ms. Not
 * while a warm-up of the dir is under way: it asks when it is done, and two index builds at once
 * would share the CPU the user's agent runs on.
 */
async function preloadMemoryDir(
  memoryDir: string,
  env: NodeJS.ProcessEnv,
  memdirs: MemdirProvider,
): Promise<boolean> {
  const [{ runningWarmUp }, { createLexicalSelector, holdsLexicalIndex }, { recall }] = await Promise.all([
    import("../../../hooks/warm-up.ts"),
    import("../../../recall/select-lexical.ts"),
    import("../../../recall/recall.ts"),
  ]);
  if (holdsLexicalIndex(memdirs.kept(memoryDir, env), memoryDir)) return false;
  if ((await runningWarmUp(memoryDir)) !== null) return false;
  const memdir = memdirs.open(memoryDir, env);
  const newest = (await memdir.scan({ limit: 1 }))[0];
  if (newest === undefined) return false;
  await recall({
    memoryDir,
    query: newest.description ?? newest.file,
    selector: createLexicalSelector(),
    memdir,
  });
  return true;
}

/**
 * One CLI run as the client would have run it: its cwd, its environment and its stdin handed to
 * `main` with a captured io. The helper's own cwd and environment stay as they are: every command
 * reads the client's from `main`'s options (docs/design.md#the-memory-helper), so runs never
 * depend on what a previous one left behind. Exported for the test that runs two clients' requests
 * in one process.
 */
export async function runHelperRequest(
  main: NonNullable<CommandContext["main"]>,
  entry: string,
  request: HelperRequest,
  memdirs: MemdirProvider,
): Promise<HelperResult> {
  let stdout = "";
  let stderr = "";
  // As process.chdir from the helper's own "/" took it.
  const cwd = path.resolve("/", request.cwd ?? "/");
  const unusable = unusableDirectory(cwd);
  if (unusable !== null) return { stdout: "", stderr: "", code: 1, fallback: unusable };
  try {
    const code = await main([process.execPath, entry, ...(request.args ?? [])], {
      io: {
        stdout: (text) => {
          stdout += text;
        },
        stderr: (text) => {
          stderr += text;
        },
        stdin: async () => request.stdin ?? "",
      },
      env: { ...(request.env ?? {}) },
      cwd,
      memdirs,
    });
    return { stdout, stderr, code };
  } catch (error) {
    return {
      stdout,
      stderr: `${stderr}memdir: ${error instanceof Error ? error.message : String(error)}\n`,
      code: 1,
    };
  }
}

/**
 * Why the client's cwd cannot be worked in (gone, not a folder), or null: the client then runs
 * the command itself, where its process's own cwd decides what happens.
 */
function unusableDirectory(cwd: string): string | null {
  try {
    return fs.statSync(cwd).isDirectory() ? null : `the client's cwd ${cwd} is not a folder`;
  } catch (error) {
    return (error as Error).message;
  }
}
