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
import { type CommandContext, type RegisterCommand, usageError } from "../../support/common.ts";
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
  // Resolved against the directory it was started in, before the helper leaves it.
  const preloadAtStart = preload === undefined ? undefined : path.resolve(preload);
  process.chdir("/");
  const reason = await serveHelper({
    paths,
    home,
    idleMs: Number.isFinite(idle) && idle > 0 ? idle : DEFAULT_HELPER_IDLE_MS,
    buildChanged: () => {
      const now = fileStamp(mainFile);
      return now !== "unknown" && now !== stamp;
    },
    run: (request, memdirs) => runRequest(main, entry, request, memdirs),
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

/** One CLI run as the client would have run it: its cwd, its environment, its stdin, a captured io. */
async function runRequest(
  main: NonNullable<CommandContext["main"]>,
  entry: string,
  request: HelperRequest,
  memdirs: MemdirProvider,
): Promise<HelperResult> {
  let stdout = "";
  let stderr = "";
  const env = { ...(request.env ?? {}) };
  try {
    process.chdir(request.cwd ?? "/");
  } catch (error) {
    return { stdout: "", stderr: "", code: 1, fallback: (error as Error).message };
  }
  // Code that reads process.env (or os.homedir()) sees what the client's process would have seen.
  for (const key of Object.keys(process.env)) if (!(key in env)) delete process.env[key];
  Object.assign(process.env, env);
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
      env,
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
