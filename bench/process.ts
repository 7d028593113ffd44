/**
 * The `process` section of `npm run bench` (issue 17): whole processes as an agent starts them
 * on every prompt, each timed as the median of RUNS runs, interleaved run by run with `node -e 0`
 * on the same box so the ratio stays meaningful on a shared, noisy machine. Runs the built CLI
 * (`bin/memdir.js` → `dist/`): `npm run build` first.
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
}

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
      const run = timeOnce(command.args, command.input, env);
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
 * `memdir list --json`; with `importRoot`, also `import("memdir")`.
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
  const removeCaches = () =>
    fs.rmSync(path.join(memoryDir, ".memdir-cache"), { recursive: true, force: true });
  // A first run leaves the cache files the warm runs read.
  timeOnce(prompt, payload("UserPromptSubmit"), env);
  const commands: Command[] = [
    { name: "hook user-prompt-submit (warm)", args: prompt, input: payload("UserPromptSubmit") },
    {
      name: "hook user-prompt-submit (cold)",
      args: prompt,
      input: payload("UserPromptSubmit"),
      before: removeCaches,
    },
    {
      name: "hook session-start",
      args: [CLI, "hook", "session-start", "--dir", memoryDir],
      input: payload("SessionStart"),
    },
    { name: "list --json", args: [CLI, "list", "--json", "--dir", memoryDir] },
  ];
  if (options.importRoot)
    commands.push({
      name: 'import("memdir")',
      args: ["--input-type=module", "-e", 'await import("memdir")'],
    });
  try {
    return measure(commands, env);
  } finally {
    fs.rmSync(home, { recursive: true, force: true });
  }
}
