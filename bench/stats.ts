/** Small statistics and process helpers shared by the benchmark modules. */
import { spawn } from "node:child_process";
import path from "node:path";

/** Nearest-rank percentile of `values` (`fraction` in 0..1); 0 for no values. */
export function percentile(values: readonly number[], fraction: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(fraction * sorted.length) - 1));
  return sorted[rank];
}

/** The median (nearest rank). */
export function median(values: readonly number[]): number {
  return percentile(values, 0.5);
}

/** Rounds to `digits` decimals (figures are printed and stored rounded). */
export function round(value: number, digits = 2): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

const repo = path.resolve(import.meta.dirname, "..");
// An absolute loader URL, so a child finds tsx whatever its cwd is.
const tsxLoader = import.meta.resolve("tsx");

/**
 * Runs `bench/<script>` in a fresh Node process (so "cold" really is a first call in a new
 * process) and returns the JSON object it prints as its last stdout line. A `.ts` script runs
 * through tsx, an `.mjs` one as it is.
 */
export function runWorker<T>(
  script: string,
  args: readonly string[],
  options: { nodeOptions?: string[]; env?: NodeJS.ProcessEnv } = {},
): Promise<T> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [
        ...(options.nodeOptions ?? []),
        // A plain JavaScript worker runs as an installed memdir would: no TypeScript loader.
        ...(script.endsWith(".mjs") ? [] : ["--import", tsxLoader]),
        path.join(repo, "bench", script),
        ...args,
      ],
      {
        cwd: repo,
        stdio: ["ignore", "pipe", "pipe"],
        env: { ...process.env, NO_COLOR: "1", ...options.env },
      },
    );
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    child.on("error", reject);
    child.on("close", (code) => {
      const last = stdout.trim().split("\n").at(-1) ?? "";
      if (code !== 0) {
        reject(new Error(`bench: ${script} ${args.join(" ")} exited with ${code}: ${stderr.trim()}`));
        return;
      }
      try {
        resolve(JSON.parse(last) as T);
      } catch {
        reject(new Error(`bench: ${script} printed no JSON result: ${stdout.slice(-500)} ${stderr}`));
      }
    });
  });
}

/** Runs a plain command (gen-scale, materialize, the CLI) and resolves to its stdout when it exits 0. */
export function runCommand(
  command: string,
  args: readonly string[],
  env?: NodeJS.ProcessEnv,
): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: repo,
      stdio: ["ignore", "pipe", "pipe"],
      env: env ?? process.env,
    });
    let output = "";
    let errors = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      output += chunk;
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      errors += chunk;
    });
    child.on("error", reject);
    child.on("close", (code) => {
      if (code === 0) resolve(output);
      else reject(new Error(`bench: ${command} ${args.join(" ")} exited with ${code}: ${errors.trim()}`));
    });
  });
}

/** The repository root (bench/..). */
export const REPO_ROOT = repo;
