/**
 * The `process` section of `npm run bench` (docs/design.md#the-prompt-hook-process): whole processes as an agent starts them
 * on every prompt, each timed as the median of RUNS runs, interleaved run by run with `node -e 0`
 * on the same box so the ratio stays meaningful on a shared, noisy machine. Runs the built CLI
 * (`bin/memdir.js` → `dist/`): `npm run build` first.
 *
 * Each command is timed twice, side by side: as a user gets it, through the memory helper
 * (started and warmed before the timed runs; docs/design.md#the-memory-helper), and with
 * `MEMDIR_HELPER=0`, the process doing all the work itself (rows marked so).
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { median, REPO_ROOT, round } from "./stats.ts";

const RUNS = 10;
const CLI = path.join(REPO_ROOT, "bin", "memdir.js");

/** One command's median wall time and its ratio to `node -e 0` measured beside it. */
export interface ProcessFigure {
  medianMs: number;
  nodeMedianMs: number;
  ratio: number;
  /** Exit code of the last run (0 expected), so a broken command is not mistaken for a fast one. */
  exitCode: number | null;
}

export type ProcessFigures = Record<string, ProcessFigure>;

interface Command {
  name: string;
  args: string[];
  input?: string;
  /** Runs before each timed run, untimed (e.g. removing the caches for a cold run). */
  before?: () => void;
  /** The environment of its runs (default: the measurement's). */
  env?: NodeJS.ProcessEnv;
}

/** The row name of a command run without the helper. */
export const NO_HELPER = ", MEMDIR_HELPER=0";

function timeOnce(args: readonly string[], input: string | undefined, env: NodeJS.ProcessEnv) {
  const started = performance.now();
  const result = spawnSync(process.execPath, args, {
    cwd: REPO_ROOT,
    input: input ?? "",
    env,
    // The output is read as a host would read it; `list --json` at 20,000 memories is megabytes.
    maxBuffer: 512 * 1024 * 1024,
    stdio: "pipe",
  });
  return { ms: performance.now() - started, code: result.status };
}

/** Times `commands` against `node -e 0`, interleaved: node, A, node, B, … for RUNS rounds. */
function measure(commands: readonly Command[], env: NodeJS.ProcessEnv): ProcessFigures {
  const samples = new Map<string, { node: number[]; own: number[]; code: number | null }>();
  for (const command of commands) samples.set(command.name, { node: [], own: [], code: null });
  for (let round = 0; round < RUNS; round++) {
    for (const command of commands) {
      const sample = samples.get(command.name)!;
      sample.node.push(timeOnce(["-e", "0"], undefined, env).ms);
      command.before?.();
      const run = timeOnce(command.args, command.input, command.env ?? env);
      sample.own.push(run.ms);
      sample.code = run.code;
    }
  }
  const figures: ProcessFigures = {};
  for (const [name, sample] of samples) {
    const own = median(sample.own);
    const node = median(sample.node);
    figures[name] = {
      medianMs: round(own, 1),
      nodeMedianMs: round(node, 1),
      ratio: round(own / node, 2),
      exitCode: sample.code,
    };
  }
  return figures;
}

/**
 * The process figures for one generated memory directory: the prompt hook warm (caches on disk
 * from a first run) and cold (caches removed before each run), the session-start hook and
 * `memdir list --json`; with `importRoot`, also `import("memdir")`. The cold prompt is timed
 * three ways: with no helper (a day's first prompt, the helper idled out), doing the work itself
 * (`MEMDIR_HELPER=0`), and through a helper that is running but has never seen the dir (a second
 * project opened the same day, or a dir whose caches were removed).
 */
export function measureProcesses(memoryDir: string, options: { importRoot: boolean }): ProcessFigures {
  const home = fs.mkdtempSync(path.join(path.dirname(memoryDir), "home-"));
  const env = { PATH: process.env.PATH ?? "", HOME: home, NO_COLOR: "1" };
  const payload = (event: string) =>
    JSON.stringify({
      hook_event_name: event,
      session_id: "bench",
      cwd: path.dirname(memoryDir),
      transcript_path: null,
      prompt: "why do the login integration tests hit a real database instead of a mock?",
    });
  const prompt = [CLI, "hook", "user-prompt-submit", "--dir", memoryDir];
  const sessionStart = [CLI, "hook", "session-start", "--dir", memoryDir];
  const list = [CLI, "list", "--json", "--dir", memoryDir];
  const removeCaches = () =>
    fs.rmSync(path.join(memoryDir, ".memdir-cache"), { recursive: true, force: true });
  const alone = { ...env, MEMDIR_HELPER: "0" };
  const stopHelper = () => timeOnce([CLI, "helper", "stop"], undefined, env);
  // A first run leaves the cache files the warm runs read.
  timeOnce(prompt, payload("UserPromptSubmit"), alone);
  startHelper(env);
  // …and warms the helper's instance of the directory (its scan, index and word vectors).
  for (const args of [prompt, sessionStart, list]) timeOnce(args, payload("UserPromptSubmit"), env);
  const both = (command: Command, noHelper: Partial<Command> = {}): Command[] => [
    command,
    { ...command, name: `${command.name}${NO_HELPER}`, env: alone, ...noHelper },
  ];
  const warm: Command[] = [
    ...both({ name: "hook user-prompt-submit (warm)", args: prompt, input: payload("UserPromptSubmit") }),
    ...both({ name: "hook session-start", args: sessionStart, input: payload("SessionStart") }),
    ...both({ name: "list --json", args: list }),
  ];
  if (options.importRoot)
    warm.push({ name: 'import("memdir")', args: ["--input-type=module", "-e", 'await import("memdir")'] });
  // Cold: no cache files and no helper (a day's first prompt): the hook does the work itself and
  // starts a helper for the next prompt. Measured after the warm rows, which need the helper warm.
  const cold = both(
    {
      name: "hook user-prompt-submit (cold)",
      args: prompt,
      input: payload("UserPromptSubmit"),
      before: () => {
        stopHelper();
        removeCaches();
      },
    },
    { before: removeCaches },
  );
  // A never-seen dir each run: the same files moved to a new path (a helper keeps what it holds
  // per path), caches removed; the helper started and warmed on the dir's first path beforehand.
  let unseenDir = memoryDir;
  const unseenPrompt = [...prompt];
  let unseenRun = 0;
  const unseen: Command = {
    name: "hook user-prompt-submit (cold, helper running)",
    args: unseenPrompt,
    input: payload("UserPromptSubmit"),
    before: () => {
      const next = `${memoryDir}-unseen-${++unseenRun}`;
      fs.renameSync(unseenDir, next);
      unseenDir = next;
      unseenPrompt[unseenPrompt.length - 1] = next;
      fs.rmSync(path.join(next, ".memdir-cache"), { recursive: true, force: true });
    },
  };
  try {
    const figures = { ...measure(warm, env), ...measure(cold, env) };
    startHelper(env);
    for (let i = 0; i < 3; i++) timeOnce(prompt, payload("UserPromptSubmit"), env);
    try {
      Object.assign(figures, measure([unseen], env));
    } finally {
      if (unseenDir !== memoryDir) fs.renameSync(unseenDir, memoryDir);
    }
    const order = [...warm.slice(0, 2), ...cold, unseen, ...warm.slice(2)].map((command) => command.name);
    return Object.fromEntries(order.map((name) => [name, figures[name]]));
  } finally {
    stopHelper();
    fs.rmSync(home, { recursive: true, force: true });
  }
}

/** Starts the helper of `env`'s HOME and waits (up to 30 s) until it answers. */
export function startHelper(env: NodeJS.ProcessEnv): void {
  timeOnce([CLI, "helper", "start"], undefined, env);
  const deadline = performance.now() + 30_000;
  while (performance.now() < deadline) {
    const status = spawnSync(process.execPath, [CLI, "helper", "status", "--json"], {
      env,
      encoding: "utf8",
    });
    if ((JSON.parse(status.stdout || "{}") as { running?: boolean }).running) return;
  }
  throw new Error("bench: the memory helper did not start");
}
