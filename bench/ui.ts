/**
 * The `ui` section of `npm run bench`: `memdir ui` over a large memory dir in a real browser
 * (Debian's chromium through playwright-core, as test/ui/browser.test.ts drives it), caches warm.
 * Each run starts a fresh server and opens the page as soon as it prints its URL, as `memdir ui`
 * does for a user; the times are taken in the page (`performance.now()`, whose origin is the
 * navigation's start) by a `MutationObserver`, so the driver's polling adds nothing
 * (docs/benchmarks.md, "The web view at 20,000 memories"). Runs the built CLI: `npm run build` first.
 */
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { chromium } from "playwright-core";
import { median, REPO_ROOT, round } from "./stats.ts";

/** Where .ci/run's Debian package puts the browser; the section is skipped without it. */
export const CHROMIUM = "/usr/bin/chromium";
const RUNS = 3;
const CLI = path.join(REPO_ROOT, "bin", "memdir.js");
/** How long the Health page may take to finish all its checks before the run reports it unfinished. */
const HEALTH_BOUND_MS = 180_000;

/** Medians in ms over RUNS fresh servers, and one Health page. */
export interface UiFigures {
  memories: number;
  runs: number;
  /** Navigation start → the first memory row in the list. */
  firstListMs: number;
  firstListRunsMs: number[];
  /** Opening Health → its first finished check drawn, and → all checks done (null past the bound). */
  healthFirstCheckMs: number;
  healthDoneMs: number | null;
  load: [number, number];
}

// The page's globals the functions below read and write (they run in the browser).
declare const document: {
  querySelector(selector: string): { dataset: Record<string, string | undefined> } | null;
};
declare const window: { __bench?: Record<string, number> };
declare class MutationObserver {
  constructor(callback: () => void);
  observe(target: unknown, options: Record<string, unknown>): void;
}
declare const performance: { now(): number };

/** Starts `memdir ui --json` and resolves with its URL and a way to stop it. */
function startUi(memoryDir: string, home: string): Promise<{ url: string; stop(): Promise<void> }> {
  const child = spawn(process.execPath, [CLI, "ui", "--json", "--dir", memoryDir], {
    cwd: home,
    env: { PATH: process.env.PATH ?? "", HOME: home, NO_COLOR: "1" },
    stdio: ["ignore", "pipe", "ignore"],
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  return new Promise((resolve, reject) => {
    let stdout = "";
    child.once("exit", (code) => reject(new Error(`bench: memdir ui exited (${code}) before its URL`)));
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
      const end = stdout.indexOf("\n");
      if (end < 0) return;
      const { url } = JSON.parse(stdout.slice(0, end)) as { url: string };
      resolve({
        url,
        stop: () => {
          child.kill();
          return exited;
        },
      });
    });
  });
}

/** Times the first list over RUNS fresh servers, then the Health page once. */
export async function measureUi(memoryDir: string, home: string, memories: number): Promise<UiFigures> {
  if (!fs.existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing (apt-get install chromium)`);
  // Caches warm: the header and index caches a list and a recall leave in the dir.
  const env = { PATH: process.env.PATH ?? "", HOME: home, NO_COLOR: "1", MEMDIR_HELPER: "0" };
  spawnSync(process.execPath, [CLI, "list", "--json", "--dir", memoryDir], { env, stdio: "ignore" });
  spawnSync(process.execPath, [CLI, "recall", "deploy", "--dir", memoryDir], { env, stdio: "ignore" });
  const load: [number, number] = [round(os.loadavg()[0], 2), 0];
  const profile = fs.mkdtempSync(path.join(home, "chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1280, height: 800 },
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--no-first-run",
      "--disable-background-networking",
      // Chromium still asks Google (accounts, component updates, autofill) in the background: no
      // name resolves, so nothing leaves the machine; the page is on 127.0.0.1 and needs none.
      "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
    ],
  });
  const firstList: number[] = [];
  let healthFirstCheckMs = 0;
  let healthDoneMs: number | null = null;
  try {
    await context.addInitScript(() => {
      const marks: Record<string, number> = {};
      window.__bench = marks;
      // The document itself: its root element does not exist yet when this runs.
      new MutationObserver(() => {
        const row = document.querySelector("#memory-list li.memory-row");
        if (row && marks.firstRow === undefined) marks.firstRow = performance.now();
        const health = document.querySelector("#health");
        if (health && marks.healthOpened !== undefined) {
          if (health.dataset.checks && marks.healthFirstCheck === undefined)
            marks.healthFirstCheck = performance.now();
          if (health.dataset.state === "done" && marks.healthDone === undefined)
            marks.healthDone = performance.now();
        }
      }).observe(document, { subtree: true, childList: true, attributes: true });
    });
    const page = context.pages()[0] ?? (await context.newPage());
    for (let run = 0; run < RUNS; run++) {
      const ui = await startUi(memoryDir, home);
      try {
        await page.goto(ui.url);
        await page.waitForFunction(() => window.__bench?.firstRow !== undefined, null, { timeout: 60_000 });
        firstList.push(await page.evaluate(() => window.__bench?.firstRow ?? -1));
        if (run === RUNS - 1) {
          // Health, opened from the navigation bar as a user clicks it.
          await page.evaluate(() => {
            if (window.__bench) window.__bench.healthOpened = performance.now();
          });
          await page.locator('nav a[data-page="health"]').click();
          await page.waitForFunction(() => window.__bench?.healthFirstCheck !== undefined, null, {
            timeout: HEALTH_BOUND_MS,
          });
          const done = await page
            .waitForFunction(() => window.__bench?.healthDone !== undefined, null, {
              timeout: HEALTH_BOUND_MS,
            })
            .then(
              () => true,
              () => false,
            );
          const marks = await page.evaluate(() => window.__bench ?? {});
          healthFirstCheckMs = marks.healthFirstCheck - marks.healthOpened;
          healthDoneMs = done ? marks.healthDone - marks.healthOpened : null;
        }
      } finally {
        await ui.stop();
      }
    }
  } finally {
    await context.close();
    fs.rmSync(profile, { recursive: true, force: true });
  }
  load[1] = round(os.loadavg()[0], 2);
  return {
    memories,
    runs: RUNS,
    firstListMs: round(median(firstList), 0),
    firstListRunsMs: firstList.map((ms) => round(ms, 0)),
    healthFirstCheckMs: round(healthFirstCheckMs, 0),
    healthDoneMs: healthDoneMs === null ? null : round(healthDoneMs, 0),
    load,
  };
}

// `node --import tsx bench/ui.ts <memory-dir> [memories]`: this section alone.
if (import.meta.url === `file://${process.argv[1]}`) {
  const [memoryDir, count = "0"] = process.argv.slice(2);
  if (!memoryDir) {
    console.error("usage: node --import tsx bench/ui.ts <memory-dir> [memories]");
    process.exit(2);
  }
  const home = fs.mkdtempSync(path.join(os.tmpdir(), "memdir-bench-ui-"));
  try {
    console.log(JSON.stringify(await measureUi(path.resolve(memoryDir), home, Number(count)), null, 2));
  } finally {
    fs.rmSync(home, { recursive: true, force: true });
  }
}
