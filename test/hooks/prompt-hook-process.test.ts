import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import v8 from "node:v8";
import { RECALL_CUT_SHORT_CONTEXT } from "../../src/cli/commands/hosts/hook.ts";
import { withMemoryLock } from "../../src/memdir/fs/lock.ts";
import { runCli } from "../helpers/cli.ts";
import { memory, writeMemory } from "../helpers/memory.ts";
import { cliNodeArgs } from "../helpers/node-entry.ts";
import { seededRandom, testSeed } from "../helpers/random.ts";
import { makeTempDir } from "../helpers/temp.ts";

// The prompt hook as an agent runs it, once per prompt, as a fresh process (docs/design.md#the-prompt-hook-process): what it
// answers from the cache files an earlier process left must be what a fresh build answers, a
// broken cache file must cost nothing but time, and load on the box must not empty the answer.

const WORDS = (
  "alpha build cache deploy error fixture gateway handler index jobs kernel logger merge " +
  "network output parser queue release schema token upload vendor worker yarn zone api " +
  "branch commit docker eslint flaky graph helm image jest kafka lint metric nginx oauth " +
  "pager redis sentry terraform unit vault webhook proxy replica shard bucket cron lambda"
).split(" ");

function sentence(random: () => number, count: number): string {
  return Array.from({ length: count }, () => WORDS[Math.floor(random() * WORDS.length)]).join(" ");
}

/** `count` generated memories in `dir`, three of them about the login tests' database. */
function generateMemories(dir: string, count: number, random: () => number): void {
  for (let i = 0; i < count; i++) {
    const file = `note-${String(i).padStart(5, "0")}.md`;
    const mtime = new Date(Date.UTC(2026, 0, 1) + Math.floor(random() * 300) * 86_400_000);
    writeMemory(dir, file, memory(sentence(random, 6), `${sentence(random, 40)}\n`), mtime);
  }
  writeMemory(
    dir,
    "feedback-login-tests-database.md",
    memory(
      "login integration tests must hit a real database, not a mock",
      "Why: a mocked database hid a broken migration last quarter.\nHow to apply: the login tests start postgres.",
    ),
  );
  writeMemory(
    dir,
    "project-login-mock-removal.md",
    memory(
      "the login mock layer is being removed",
      "Integration tests for login use the real database.",
      "project",
    ),
  );
  writeMemory(
    dir,
    "reference-database-fixtures.md",
    memory("database fixtures for integration tests live in test/fixtures/db", "", "reference"),
  );
}

const PROMPTS = [
  "why do the login integration tests hit a real database instead of a mock?",
  "where do the database fixtures for the integration tests live",
  "the kafka worker queue keeps failing on deploy, what did we note about it",
];

// Each run its own session: within one session the hook does not show a memory twice
// (docs/design.md#file-hook), and these tests compare what separate runs pick.
function hookInput(prompt: string, cwd: string): string {
  const session = `s-${Math.random().toString(36).slice(2)}`;
  return JSON.stringify({ hook_event_name: "UserPromptSubmit", session_id: session, cwd, prompt });
}

/** The context the prompt hook adds for `prompt` (empty when it adds none). */
async function promptContext(
  dir: string,
  home: string,
  prompt: string,
  options: { env?: Record<string, string>; args?: string[] } = {},
): Promise<string> {
  const result = await runCli(["hook", "user-prompt-submit", "--dir", dir, ...(options.args ?? [])], {
    home,
    input: hookInput(prompt, home),
    env: options.env,
    timeoutMs: 60_000,
  });
  assert.equal(result.code, 0, result.stderr);
  const output = JSON.parse(result.stdout) as { hookSpecificOutput?: { additionalContext: string } };
  return output.hookSpecificOutput?.additionalContext ?? "";
}

/** The memory files a hook context shows, in order. */
function shownFiles(context: string): string[] {
  return [...context.matchAll(/^Memory[^\n]*?: (\/[^\n]+\.md):$/gm)].map((match) => path.basename(match[1]));
}

/** A bound no run reaches: these cases compare answers, the bound has cases of its own below. */
const NO_BOUND = ["--timeout-ms", "300000"];

/** The prompt hook with its cache files (and no time bound in the way). */
function cached(dir: string, home: string, prompt: string): Promise<string> {
  return promptContext(dir, home, prompt, { args: NO_BOUND });
}

/** The same prompt from a cache-free build (`MEMDIR_NO_CACHE=1`): what the cached run must equal. */
function fresh(dir: string, home: string, prompt: string): Promise<string> {
  return promptContext(dir, home, prompt, { env: { MEMDIR_NO_CACHE: "1" }, args: NO_BOUND });
}

const cacheDir = (dir: string) => path.join(dir, ".memdir-cache");
const lexicalFile = (dir: string) => path.join(cacheDir(dir), "lexical.bin");

/** The JSON header of a binary cache file (memdir/cache/binary-cache.ts): its bytes and where they lie. */
function cacheHeader(file: Buffer): { start: number; end: number; header: { fingerprint: string } } {
  const start = 12;
  const end = start + file.readUInt32LE(8);
  return { start, end, header: JSON.parse(file.toString("utf8", start, end)) };
}

describe("the prompt hook from the cache files of earlier processes", () => {
  it("answers exactly what a fresh build answers, run after run, with memories changed in between", async (t) => {
    const seed = testSeed();
    t.diagnostic(`seed ${seed}`);
    const random = seededRandom(seed);
    const home = makeTempDir();
    const dir = path.join(home, "memory");
    generateMemories(dir, 600, random);
    const rounds: Array<() => void> = [
      () => {},
      // In-place edits (same names, new text), deletions and additions.
      () => {
        for (let i = 0; i < 5; i++) {
          const file = path.join(dir, `note-${String(Math.floor(random() * 600)).padStart(5, "0")}.md`);
          if (fs.existsSync(file))
            fs.writeFileSync(
              file,
              memory(sentence(random, 6), `kafka worker queue deploy ${sentence(random, 30)}\n`),
            );
        }
        for (let i = 0; i < 3; i++)
          fs.rmSync(path.join(dir, `note-${String(Math.floor(random() * 600)).padStart(5, "0")}.md`), {
            force: true,
          });
        for (let i = 0; i < 4; i++)
          writeMemory(
            dir,
            `added-${i}.md`,
            memory(`kafka ${sentence(random, 5)}`, `${sentence(random, 30)}\n`),
          );
      },
      // The best match for a prompt rewritten, and one renamed.
      () => {
        writeMemory(
          dir,
          "feedback-login-tests-database.md",
          memory("login tests: the staging database is shared, reset it first", "Integration runs reset it."),
        );
        fs.renameSync(
          path.join(dir, "project-login-mock-removal.md"),
          path.join(dir, "project-login-mocks.md"),
        );
      },
    ];
    for (const [round, change] of rounds.entries()) {
      change();
      for (const prompt of PROMPTS) {
        const fromCache = await cached(dir, home, prompt);
        assert.equal(fromCache, await fresh(dir, home, prompt), `round ${round}, "${prompt}" (seed ${seed})`);
      }
      assert.ok(fs.existsSync(lexicalFile(dir)), `round ${round}: the hook left its index on disk`);
    }
    assert.ok(shownFiles(await cached(dir, home, PROMPTS[0])).length > 0, "the prompt recalls something");
  });

  it("ignores a truncated index file, one from another version or program and a killed writer's leftovers, and rebuilds", async () => {
    const random = seededRandom(17);
    const home = makeTempDir();
    const dir = path.join(home, "memory");
    generateMemories(dir, 600, random);
    const expected = await fresh(dir, home, PROMPTS[0]);
    assert.ok(shownFiles(expected).includes("feedback-login-tests-database.md"));
    assert.equal(await cached(dir, home, PROMPTS[0]), expected);
    const whole = fs.readFileSync(lexicalFile(dir));

    // Truncated (a disk that filled up, a copy cut short).
    fs.writeFileSync(lexicalFile(dir), whole.subarray(0, Math.floor(whole.length / 2)));
    assert.equal(await cached(dir, home, PROMPTS[0]), expected);
    assert.equal(fs.statSync(lexicalFile(dir)).size, whole.length, "rebuilt whole");

    // Written by another version of memdir: another fingerprint in the header (same length, so
    // every size still adds up), and another layout version.
    const { start, end, header } = cacheHeader(whole);
    const otherCode = Buffer.from(whole);
    const otherHeader = JSON.stringify({ ...header, fingerprint: "f".repeat(header.fingerprint.length) });
    otherCode.write(otherHeader, start, end - start, "utf8");
    fs.writeFileSync(lexicalFile(dir), otherCode);
    assert.equal(await cached(dir, home, PROMPTS[0]), expected);
    assert.equal(cacheHeader(fs.readFileSync(lexicalFile(dir))).header.fingerprint, header.fingerprint);
    const otherLayout = Buffer.from(whole);
    otherLayout.writeUInt32LE(99, 4);
    fs.writeFileSync(lexicalFile(dir), otherLayout);
    assert.equal(await cached(dir, home, PROMPTS[0]), expected);
    assert.equal(fs.readFileSync(lexicalFile(dir)).readUInt32LE(4), whole.readUInt32LE(4), "rewritten");
    // Another program's file under the name, and the v8 file earlier versions wrote (replaced).
    fs.writeFileSync(lexicalFile(dir), "not an index at all");
    fs.writeFileSync(path.join(cacheDir(dir), "lexical.v8"), v8.serialize({ stale: true }));
    assert.equal(await cached(dir, home, PROMPTS[0]), expected);
    assert.equal(fs.statSync(lexicalFile(dir)).size, whole.length, "rebuilt whole");
    assert.equal(fs.existsSync(path.join(cacheDir(dir), "lexical.v8")), false, "the old file is gone");

    // Writers killed mid-build, and mid-save (as soon as their temp file shows up).
    const tempFiles = () =>
      fs.existsSync(cacheDir(dir))
        ? fs.readdirSync(cacheDir(dir)).filter((name) => name.includes("memdir-tmp"))
        : [];
    let killedMidSave = 0;
    for (const when of ["build", "save", "save", "save", "save"] as const) {
      fs.rmSync(cacheDir(dir), { recursive: true, force: true });
      const child = spawn(
        process.execPath,
        [...cliNodeArgs(), "hook", "user-prompt-submit", "--dir", dir, ...NO_BOUND],
        {
          env: { PATH: process.env.PATH ?? "", HOME: home, NO_COLOR: "1" },
          stdio: ["pipe", "ignore", "ignore"],
        },
      );
      const closed = new Promise((resolve) => child.once("close", resolve));
      child.stdin.end(hookInput(PROMPTS[0], home));
      if (when === "build") await new Promise((resolve) => setTimeout(resolve, 150));
      else
        while (child.exitCode === null && tempFiles().length === 0)
          await new Promise((resolve) => setTimeout(resolve, 1));
      if (when === "save" && tempFiles().length > 0) killedMidSave++;
      child.kill("SIGKILL");
      await closed;
      assert.equal(await cached(dir, home, PROMPTS[0]), expected, `killed mid-${when}`);
      if (killedMidSave >= 2) break;
    }
    assert.ok(killedMidSave > 0, "no writer was caught mid-save");
    const leftovers = fs.readdirSync(cacheDir(dir)).filter((name) => name.includes("memdir-tmp"));
    assert.deepEqual(leftovers, [], "a dead writer's temp files are removed by the next save");
  });
});

describe("the prompt hook under a time bound and under load", () => {
  it("says in one line of context, and on stderr, that its time bound cut memory short", async () => {
    const home = makeTempDir();
    const dir = path.join(home, "memory");
    writeMemory(dir, "feedback-db.md", memory("login tests hit a real database", "Never mock it."));
    // The writer lock held by this process: the hook's "remember …" waits for it past its bound.
    const result = await withMemoryLock(dir, () =>
      runCli(["hook", "user-prompt-submit", "--dir", dir, "--timeout-ms", "400"], {
        home,
        input: hookInput("remember that the login tests need the staging database", home),
      }),
    );
    assert.equal(result.code, 0);
    const output = JSON.parse(result.stdout) as { hookSpecificOutput: { additionalContext: string } };
    assert.equal(output.hookSpecificOutput.additionalContext, RECALL_CUT_SHORT_CONTEXT);
    assert.equal(result.stderr.trim().split("\n").length, 1, result.stderr);
    assert.match(result.stderr, /recall cut short: timed out after 400 ms/);
  });

  it("still returns, at 2,000 memories with two CPU-bound processes beside it, the memory it returns on an idle box", async () => {
    const home = makeTempDir();
    const dir = path.join(home, "memory");
    generateMemories(dir, 2000, seededRandom(2000));
    // What a session start leaves behind (its warm-up), then the default time bound throughout.
    const warm = await runCli(["warm-up", "--dir", dir], { home, timeoutMs: 120_000 });
    assert.equal(warm.code, 0, warm.stderr);
    const idle = new Map<string, string[]>();
    for (const prompt of PROMPTS) idle.set(prompt, shownFiles(await promptContext(dir, home, prompt)));
    assert.ok(
      idle.get(PROMPTS[0])?.includes("feedback-login-tests-database.md"),
      idle.get(PROMPTS[0])?.join(", "),
    );
    const spinners: ChildProcess[] = [0, 1].map(() =>
      spawn(process.execPath, ["-e", "for (;;) {}"], { stdio: "ignore" }),
    );
    try {
      for (const prompt of PROMPTS) {
        const loaded = await promptContext(dir, home, prompt);
        assert.notEqual(loaded, RECALL_CUT_SHORT_CONTEXT, "the time bound ran out under load");
        assert.deepEqual(shownFiles(loaded), idle.get(prompt), prompt);
      }
    } finally {
      for (const spinner of spinners) spinner.kill("SIGKILL");
    }
  });
});
