import fs from "node:fs";
import net from "node:net";
import { watchingEnabled } from "../config.ts";
import type { ChangeWatchAnswer } from "../sync/run.ts";
import {
  ensureHelperDir,
  HELPER_PROTOCOL,
  type HelperPaths,
  helperEnabled,
  helperPaths,
  readHelperSecret,
  STARTING_STALE_MS,
  unsafeHelperDir,
} from "./paths.ts";
import type { HelperRequest } from "./server.ts";

/** What a helper answered: its pid, and the lines after the acknowledgement. */
export type HelperAnswer =
  | { kind: "answered"; pid: number; lines: unknown[] }
  | { kind: "other-build" }
  | { kind: "none"; reason: string };

/**
 * Sends `request` (protocol, build and the helper's secret filled in) to the helper at `paths` and reads its lines
 * until it closes, within `timeoutMs`. Used by `memdir helper status|stop` and by the
 * session-start check; the hooks' fast path is the plain-JS copy in bin/memdir.js.
 */
export function askHelper(
  paths: HelperPaths,
  request: Omit<HelperRequest, "v" | "build">,
  timeoutMs: number,
): Promise<HelperAnswer> {
  const unsafe = unsafeHelperDir(paths.dir);
  if (unsafe !== null) return Promise.resolve({ kind: "none", reason: unsafe });
  return new Promise((resolve) => {
    const socket = net.connect(paths.socket);
    let text = "";
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ kind: "none", reason: `no answer on ${paths.socket} within ${timeoutMs} ms` });
    }, timeoutMs);
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => {
      text += chunk;
    });
    socket.on("error", (error) => {
      clearTimeout(timer);
      resolve({
        kind: "none",
        reason: `${paths.socket}: ${(error as NodeJS.ErrnoException).code ?? error.message}`,
      });
    });
    socket.on("end", () => {
      clearTimeout(timer);
      // A line that is not JSON (not a helper on that socket) must not throw inside this handler,
      // where the caller's try cannot catch it: it reads as no answer.
      const lines = text
        .split("\n")
        .filter((line) => line !== "")
        .map((line) => {
          try {
            return JSON.parse(line) as Record<string, unknown>;
          } catch {
            return null;
          }
        });
      if (lines.includes(null)) {
        resolve({ kind: "none", reason: `${paths.socket} answered something that is not the helper's` });
        return;
      }
      const [first, ...rest] = lines;
      if (first?.other === true) resolve({ kind: "other-build" });
      else if (typeof first?.ack === "number") resolve({ kind: "answered", pid: first.ack, lines: rest });
      else resolve({ kind: "none", reason: `${paths.socket} closed without an answer` });
    });
    const secret = readHelperSecret(paths.secret);
    socket.write(`${JSON.stringify({ ...request, v: HELPER_PROTOCOL, build: paths.build, secret })}\n`);
  });
}

/**
 * How long `memdir sync` waits for the helper's change watch. It answers within a few
 * milliseconds unless a long run holds its event loop (an index build at 20,000 memories); then
 * the sync reads the memory dir itself rather than wait.
 */
const CHANGE_WATCH_WAIT_MS = 300;

/**
 * The running helper's change watch, for `memdir sync` (src/helper/change-watch.ts): whether a
 * memory dir is unchanged since a token. Undefined when no helper may be asked (`MEMDIR_HELPER=0`,
 * watching off, no HOME); a helper is never started for it. Without an answer (no helper, another
 * build, too slow) it says "not unchanged, no token", and the sync reads the dir as always.
 */
export function helperChangeWatch(
  env: NodeJS.ProcessEnv,
  paths: HelperPaths | null = helperPaths(env.HOME || undefined),
): ((memoryDir: string, token: string | undefined) => Promise<ChangeWatchAnswer>) | undefined {
  if (!helperEnabled(env) || !watchingEnabled(env) || paths === null) return undefined;
  const none: ChangeWatchAnswer = { unchanged: false, token: null };
  return async (memoryDir, token) => {
    if (!fs.existsSync(paths.socket)) return none;
    const answer = await askHelper(
      paths,
      { op: "watch", dir: memoryDir, ...(token !== undefined ? { token } : {}) },
      CHANGE_WATCH_WAIT_MS,
    );
    if (answer.kind !== "answered") return none;
    const line = answer.lines[0] as Partial<ChangeWatchAnswer> | undefined;
    if (typeof line?.unchanged !== "boolean" || !(line.token === null || typeof line.token === "string"))
      return none;
    // "Unchanged" holds only for the token asked about: anything else reads as a change.
    return { unchanged: line.unchanged && token !== undefined && line.token === token, token: line.token };
  };
}

/**
 * Starts the helper in the background unless one answers or another start is under way (a
 * marker file, taken exclusively, keeps simultaneous sessions from starting a storm). Resolves
 * to the line a hook logs, or null when there was nothing to do.
 */
export async function startHelperIfNone(
  env: NodeJS.ProcessEnv,
  spawnHelper: () => number | undefined,
): Promise<string | null> {
  const paths = helperPaths(env.HOME);
  if (paths === null) return null;
  if (fs.existsSync(paths.socket)) {
    const status = await askHelper(paths, { op: "status" }, 300);
    if (status.kind === "answered") return null;
  }
  const unfit = ensureHelperDir(paths.dir);
  if (unfit !== null) return `no memory helper: ${unfit}`;
  if (!claimStart(paths.starting)) return null;
  // A helper another start launched may have begun listening (and removed its marker) since the
  // check above: then it serves, and a second one would only exit again.
  if (fs.existsSync(paths.socket) && (await askHelper(paths, { op: "status" }, 300)).kind === "answered") {
    fs.rmSync(paths.starting, { force: true });
    return null;
  }
  const pid = spawnHelper();
  return `memory helper started in the background (pid ${pid})`;
}

/** Takes the starting marker; false while another start younger than {@link STARTING_STALE_MS} holds it. */
function claimStart(marker: string): boolean {
  try {
    fs.writeFileSync(marker, `${process.pid}\n`, { flag: "wx", mode: 0o600 });
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") return false;
  }
  try {
    if (Date.now() - fs.statSync(marker).mtimeMs < STARTING_STALE_MS) return false;
    fs.writeFileSync(marker, `${process.pid}\n`, { mode: 0o600 });
    return true;
  } catch {
    return false;
  }
}
