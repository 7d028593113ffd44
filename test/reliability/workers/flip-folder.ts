// Child process for symlink-race.test.ts: swaps the memory dir's `sub` folder between the real
// folder and a symbolic link to a folder outside, as fast as it can, while the test's writes,
// deletes and reads run. Bounded: stops after <maxFlips> flips, <maxMs> milliseconds, or when
// <stopFile> appears; leaves the real folder in place and prints {"flips": N}.
// Usage: node --import tsx flip-folder.ts <memoryDir> <outsideDir> <stopFile> <maxFlips> <maxMs>
import fs from "node:fs";
import path from "node:path";

const [memoryDir, outsideDir, stopFile, maxFlipsText, maxMsText] = process.argv.slice(2);
const sub = path.join(memoryDir, "sub");
const parked = path.join(memoryDir, "parked");
const link = path.join(memoryDir, ".flip-link");
const until = Date.now() + Number(maxMsText);
const maxFlips = Number(maxFlipsText);
let strays = 0;

function kind(target: string): "link" | "folder" | null {
  try {
    return fs.lstatSync(target).isSymbolicLink() ? "link" : "folder";
  } catch {
    return null;
  }
}

function attempt(step: () => void): void {
  try {
    step();
  } catch {
    // A writer created or removed something meanwhile: the next flip sorts it out.
  }
}

/** `sub` becomes the link to outside; the real folder waits as `parked`. */
function flipOut(): void {
  if (kind(sub) === "folder") {
    // A folder a writer created while `sub` was away is moved aside (it stays inside).
    attempt(() => fs.renameSync(sub, kind(parked) ? path.join(memoryDir, `stray-${strays++}`) : parked));
  }
  if (kind(link)) attempt(() => fs.renameSync(link, sub));
}

/** The real folder is back as `sub`; the link waits as `.flip-link`. */
function flipIn(): void {
  if (kind(sub) === "link") attempt(() => fs.renameSync(sub, link));
  if (kind(parked)) {
    if (kind(sub)) attempt(() => fs.renameSync(sub, path.join(memoryDir, `stray-${strays++}`)));
    attempt(() => fs.renameSync(parked, sub));
  }
}

const sleeper = new Int32Array(new SharedArrayBuffer(4));
/** Sleeps a fraction of a millisecond without spinning: the suite's other tests share the cores. */
function pause(steps: number): void {
  Atomics.wait(sleeper, 0, 0, steps * 0.02);
}

fs.symlinkSync(outsideDir, link);
process.stdout.write("started\n");
let flips = 0;
while (flips < maxFlips && Date.now() < until) {
  if (flips % 50 === 0 && fs.existsSync(stopFile)) break;
  flipOut();
  pause(1 + (flips % 7));
  flipIn();
  pause(1 + (flips % 5));
  flips++;
}
flipIn();
attempt(() => fs.unlinkSync(link));
process.stdout.write(`${JSON.stringify({ flips, strays })}\n`);
