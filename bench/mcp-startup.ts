/**
 * The `mcp` section of `npm run bench`: spawn → `tools/list` answered, as an MCP host that starts
 * a server and waits for its tools (Codex waits about 1 s for an optional server, Cline 3 s).
 * `memdir mcp` is timed beside a minimal SDK server with one tool (bench/minimal-mcp-server.mjs)
 * and `node -e 0`, interleaved run by run, medians of RUNS runs (docs/design.md#mcp-server).
 * Runs the built CLI (`bin/memdir.js` → `dist/`): `npm run build` first.
 */
import { spawn, spawnSync } from "node:child_process";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { median, REPO_ROOT, round } from "./stats.ts";

const RUNS = 11;
const CLI = path.join(REPO_ROOT, "bin", "memdir.js");
const MINIMAL = path.join(REPO_ROOT, "bench", "minimal-mcp-server.mjs");

/** Medians in ms, and memdir's ratio to the minimal server measured beside it. */
export interface McpStartupFigures {
  runs: number;
  nodeMs: number;
  minimalServerMs: number;
  memdirMs: number;
  ratioToMinimal: number;
  /** The 1-minute load average before and after: the box is shared. */
  load: [number, number];
}

/** Starts `args`, sends `initialize` then `tools/list`, and resolves with the ms until the list arrives. */
function timeToToolsList(args: readonly string[], env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, args, { cwd: REPO_ROOT, env, stdio: ["pipe", "pipe", "ignore"] });
    let buffered = "";
    const send = (message: object) => child.stdin.write(`${JSON.stringify(message)}\n`);
    child.on("error", reject);
    child.on("exit", (code) => {
      if (buffered !== "done")
        reject(new Error(`bench: ${args.join(" ")} exited (${code}) before tools/list`));
    });
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      buffered += chunk;
      for (;;) {
        const end = buffered.indexOf("\n");
        if (end < 0) return;
        const message = JSON.parse(buffered.slice(0, end)) as { id?: number; result?: { tools?: unknown[] } };
        buffered = buffered.slice(end + 1);
        if (message.id === 1) {
          send({ jsonrpc: "2.0", method: "notifications/initialized" });
          send({ jsonrpc: "2.0", id: 2, method: "tools/list" });
        } else if (message.id === 2) {
          const ms = performance.now() - started;
          buffered = "done";
          if (!message.result?.tools?.length) reject(new Error(`bench: ${args.join(" ")} listed no tools`));
          child.stdin.end();
          child.kill();
          resolve(ms);
          return;
        }
      }
    });
    send({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: {
        protocolVersion: "2025-06-18",
        capabilities: {},
        clientInfo: { name: "bench", version: "0" },
      },
    });
  });
}

/** Times the three side by side for RUNS rounds (node, minimal, memdir in each round). */
export async function measureMcpStartup(memoryDir: string, home: string): Promise<McpStartupFigures> {
  const env = { PATH: process.env.PATH ?? "", HOME: home, NO_COLOR: "1" };
  const load: [number, number] = [loadAverage(), 0];
  const node: number[] = [];
  const minimal: number[] = [];
  const memdir: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    const started = performance.now();
    spawnSync(process.execPath, ["-e", "0"], { env });
    node.push(performance.now() - started);
    minimal.push(await timeToToolsList([MINIMAL], env));
    memdir.push(await timeToToolsList([CLI, "mcp", "--dir", memoryDir], env));
  }
  load[1] = loadAverage();
  return {
    runs: RUNS,
    nodeMs: round(median(node), 1),
    minimalServerMs: round(median(minimal), 1),
    memdirMs: round(median(memdir), 1),
    ratioToMinimal: round(median(memdir) / median(minimal), 2),
    load,
  };
}

function loadAverage(): number {
  return round(os.loadavg()[0], 2);
}

// `node --import tsx bench/mcp-startup.ts <memory-dir>`: this section alone.
if (import.meta.url === `file://${process.argv[1]}`) {
  const [memoryDir = path.join(REPO_ROOT, "test", "fixtures"), home = REPO_ROOT] = process.argv.slice(2);
  console.log(JSON.stringify(await measureMcpStartup(memoryDir, home), null, 2));
}
