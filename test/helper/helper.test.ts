// The memory helper (docs/design.md#the-memory-helper) through real processes: bin/memdir.js as
// a host runs it, a helper on a real unix socket under a temp HOME, memories changed on disk
// between requests, the helper killed, stopped, or of another build.
import assert from "node:assert/strict";
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { after, describe, it } from "node:test";
import { askHelper } from "../../src/helper/ask.ts";
import { type HelperPaths, helperPaths } from "../../src/helper/paths.ts";
import { sanitizeProjectPath } from "../../src/memdir/location/paths.ts";
import { startFakeModelServer } from "../../src/testing/fake-model-server.ts";
import { type CliResult, runProcess } from "../helpers/cli.ts";
import { makeMemdirPackage } from "../helpers/memdir-package.ts";
import { memory, writeMemory } from "../helpers/memory.ts";
import { gitIn } from "../helpers/sync-machines.ts";
import { makeTempDir } from "../helpers/temp.ts";
import { processGone, waitFor } from "../helpers/wait.ts";

const repo = path.resolve(import.meta.dirname, "../..");
/** Helpers this file started: killed at the end whatever happened (their HOMEs go too). */
const started = new Set<number>();
after(() => {
  for (const pid of started) {
    try {
      process.kill(pid, "SIGCONT");
      process.kill(pid, "SIGKILL");
    } catch {} // gone already
  }
});

const pkg = makeMemdirPackage();

interface Box {
  home: string;
  paths: HelperPaths;
  run(
    args: string[],
    options?: { input?: string; env?: Record<string, string>; cwd?: string },
  ): Promise<CliResult>;
}

/** A temp HOME whose memdir runs go through `pkg`'s bin/memdir.js with the helper on. */
function makeBox(home = makeTempDir("memdir-helper-home-"), env: Record<string, string> = {}): Box {
  const paths = helperPaths(home, pkg.mainFile);
  assert.ok(paths, "a helper is possible here");
  return {
    home,
    paths,
    run: (args, options = {}) =>
      runProcess(process.execPath, [pkg.bin, ...args], {
        cwd: options.cwd ?? home,
        // TMPDIR as this process has it: the socket's fallback folder is in it (helperPaths).
        env: {
          PATH: process.env.PATH ?? "",
          HOME: home,
          NO_COLOR: "1",
          ...(process.env.TMPDIR ? { TMPDIR: process.env.TMPDIR } : {}),
          ...env,
          ...options.env,
        },
        input: options.input,
      }),
  };
}

/** Starts the box's helper (as a session start does) and waits until it answers; its pid. */
async function startHelper(box: Box, env: Record<string, string> = {}): Promise<number> {
  const start = await box.run(["helper", "start"], { env });
  assert.equal(start.code, 0, start.stderr);
  return helperAnswering(box.paths, "the helper to answer");
}

/** Waits until a helper (other than `notPid`) answers on the box's socket; its pid. */
async function helperAnswering(paths: HelperPaths, what: string, notPid?: number): Promise<number> {
  let pid = 0;
  await waitFor(
    async () => {
      const answer = await askHelper(paths, { op: "status" }, 1000);
      if (answer.kind === "answered") {
        pid = answer.pid;
        started.add(pid);
      }
      return answer.kind === "answered" && pid !== notPid;
    },
    { what },
  );
  return pid;
}

/**
 * How long a test waits for a running helper to answer a status request: a bound for a loaded
 * box, not a pace. The tests wait for the answer itself; with 2 s, a helper busy loading a dir
 * ahead on a box at load 16 (a core shared eight ways) answered too late, the ask read as "none"
 * and the test failed for no fault of the helper.
 */
const ANSWER_BOUND_MS = 30_000;

async function requestsServed(box: Box): Promise<number> {
  const answer = await askHelper(box.paths, { op: "status" }, ANSWER_BOUND_MS);
  assert.equal(answer.kind, "answered");
  return (answer.lines[0] as { requests: number }).requests;
}

const TOPICS = [
  ["deploy", "deploys go out through the blue-green pipeline on Tuesdays", "Run make deploy from main only."],
  [
    "database",
    "integration tests hit a real postgres database, never a mock",
    "The mock hid a broken migration.",
  ],
  ["review", "code review needs two approvals before merge", "One from the owning team."],
  ["logging", "log lines are structured json with a request id", "Plain text logs broke the parser."],
  ["release", "release notes are written in the changelog by the author", "Keep them user-facing."],
  ["oncall", "the oncall rotation hands over on Monday mornings", "Page the secondary after 15 minutes."],
] as const;

/** A memory dir with a few topical memories and filler, and the hook input of a prompt there. */
function makeMemories(dir: string, tag: string): void {
  for (const [name, description, body] of TOPICS)
    writeMemory(dir, `project-${name}-${tag}.md`, memory(`${description} (${tag})`, body, "project"));
  for (let i = 0; i < 30; i++)
    writeMemory(
      dir,
      `reference-note-${i}-${tag}.md`,
      memory(`note ${i} about topic ${i % 7} in ${tag}`, `body ${i}`, "reference"),
    );
  fs.writeFileSync(
    path.join(dir, "MEMORY.md"),
    TOPICS.map(([name]) => `- [${name}](project-${name}-${tag}.md)`).join("\n"),
  );
}

function promptInput(cwd: string, prompt: string): string {
  return JSON.stringify({ hook_event_name: "UserPromptSubmit", cwd, prompt });
}

/**
 * The result without session start's note that it started a background cache warm-up: whether
 * one starts depends on whether the previous run's warm-up has finished yet (a background process),
 * not on the answer, so two runs a few ms apart may differ there either way.
 */
function withoutWarmUpNote(result: CliResult): CliResult {
  const stderr = result.stderr
    .replace(/cache warm-up started in the background \(pid \d+\): [^;\n]*(; )?/g, "")
    .replace(/^memdir: hook [^:]+: (; )?\n/gm, "")
    .replace(/; \n/g, "\n");
  return { ...result, stderr };
}

/** The same command with the helper on (through it) and off (in this process): equal answers. */
async function assertSameBothWays(box: Box, args: string[], input?: string): Promise<CliResult> {
  const before = await requestsServed(box);
  const through = await box.run(args, { input });
  assert.equal(await requestsServed(box), before + 1, `the helper answered ${args.join(" ")}`);
  const alone = await box.run(args, { input, env: { MEMDIR_HELPER: "0" } });
  assert.deepEqual(
    withoutWarmUpNote(through),
    withoutWarmUpNote(alone),
    `${args.join(" ")}: the helper answers as the process alone does`,
  );
  return through;
}

/** A box with memories tagged "a" in `<home>/memory`, its helper started, and the prompt hook's args there. */
async function boxWithMemories(): Promise<{ box: Box; dir: string; prompt: string[] }> {
  const box = makeBox();
  const dir = path.join(box.home, "memory");
  makeMemories(dir, "a");
  await startHelper(box);
  return { box, dir, prompt: ["hook", "user-prompt-submit", "--dir", dir] };
}

describe("memory helper: answers", () => {
  it("answers the prompt hook, session start and list as the process alone does, as memories change on disk", async () => {
    const { box, dir, prompt } = await boxWithMemories();
    const ask = (text: string) => assertSameBothWays(box, prompt, promptInput(box.home, text));
    const first = await ask("how do we deploy to production");
    assert.match(first.stdout, /project-deploy-a\.md/);
    await assertSameBothWays(box, ["list", "--json", "--dir", dir]);
    await assertSameBothWays(box, ["list", "--dir", dir]);
    await assertSameBothWays(box, ["hook", "SessionStart", "--dir", dir], JSON.stringify({ cwd: box.home }));

    // Edited: the deploy memory now speaks of canary releases.
    writeMemory(
      dir,
      "project-deploy-a.md",
      memory("deploys go out as canary releases on Thursdays", "Canary first.", "project"),
    );
    const edited = await ask("when do canary releases happen");
    assert.match(edited.stdout, /canary releases on Thursdays/);
    // The helper's listing of the same dir is made anew after an edit, not printed again.
    const listed = await assertSameBothWays(box, ["list", "--json", "--dir", dir]);
    assert.match(listed.stdout, /canary releases on Thursdays/);
    // Added, then removed.
    writeMemory(
      dir,
      "project-flaky-a.md",
      memory("the flaky checkout test is quarantined behind a flag", "", "project"),
    );
    assert.match((await ask("what about the flaky checkout test")).stdout, /project-flaky-a\.md/);
    await assertSameBothWays(box, ["list", "--json", "--dir", dir]);
    fs.rmSync(path.join(dir, "project-flaky-a.md"));
    assert.doesNotMatch((await ask("what about the flaky checkout test")).stdout, /project-flaky-a\.md/);
    await assertSameBothWays(box, ["list", "--json", "--dir", dir]);
    // A new sub-folder with a memory in it.
    writeMemory(
      dir,
      "team/project-standup-a.md",
      memory("standup is at 9:30 in the big room", "", "project"),
    );
    assert.match((await ask("when is standup")).stdout, /project-standup-a\.md/);
    // Errors come back as they are: a bad flag, a missing dir.
    await assertSameBothWays(box, ["list", "--source", "nobody", "--dir", dir]);
    await assertSameBothWays(box, prompt, "not json");
  });

  it("gives two sessions working at the same time each its own answer", async () => {
    const box = makeBox();
    const dirs = ["x", "y"].map((tag) => {
      const dir = path.join(box.home, `memory-${tag}`);
      makeMemories(dir, tag);
      return { tag, dir };
    });
    await startHelper(box);
    const prompts = [
      "how do we deploy to production",
      "who is oncall on monday",
      "structured json log lines",
    ];
    const runs = dirs.flatMap(({ dir }) => prompts.map((prompt) => ({ dir, prompt })));
    const expected = await Promise.all(
      runs.map(({ dir, prompt }) =>
        box.run(["hook", "user-prompt-submit", "--dir", dir], {
          input: promptInput(box.home, prompt),
          env: { MEMDIR_HELPER: "0" },
        }),
      ),
    );
    const before = await requestsServed(box);
    const answers = await Promise.all(
      [...runs, ...runs].map(({ dir, prompt }) =>
        box.run(["hook", "user-prompt-submit", "--dir", dir], { input: promptInput(box.home, prompt) }),
      ),
    );
    for (const [i, answer] of answers.entries())
      assert.deepEqual(answer, expected[i % runs.length], `run ${i}`);
    assert.ok((await requestsServed(box)) > before, "the helper answered some of them");
    for (const { tag } of dirs) assert.ok(answers.some((answer) => answer.stdout.includes(`-${tag}.md`)));
  });
});

/**
 * Runs the box's prompt hook under `sh` with `redirect` as its stdin (a pipe from printf, a file,
 * a FIFO), as hosts that start hooks through a shell do; `feed` writes the FIFO's side, if any.
 */
function runInShell(box: Box, args: string[], redirect: string, env: Record<string, string> = {}) {
  return runProcess("/bin/sh", ["-c", `${redirect} "$0" "$@"`, process.execPath, pkg.bin, ...args], {
    cwd: box.home,
    env: { PATH: process.env.PATH ?? "", HOME: box.home, NO_COLOR: "1", ...env },
  });
}

describe("memory helper: the hook's input", () => {
  it("is read alike from a shell pipe, a file and a FIFO written late, and answered as the process alone does", async () => {
    const { box, prompt } = await boxWithMemories();
    const input = promptInput(box.home, "how do we deploy to production");
    assert.ok(!input.includes("'"), "the input fits in single quotes");
    const alone = await box.run(prompt, { input, env: { MEMDIR_HELPER: "0" } });
    assert.match(alone.stdout, /project-deploy-a\.md/);
    const inputFile = path.join(box.home, "input.json");
    fs.writeFileSync(inputFile, input);
    const fifo = path.join(box.home, "input.fifo");
    assert.equal(spawnSync("mkfifo", [fifo]).status, 0, "mkfifo");
    const ways: [string, () => Promise<CliResult>][] = [
      ["a pipe", () => runInShell(box, prompt, `printf '%s' '${input}' | exec`)],
      ["a file", () => runInShell(box, prompt, `exec <'${inputFile}'`)],
      [
        "a FIFO written in two parts",
        async () => {
          // Opened for reading and writing, so neither side's open waits for the other.
          const writer = fs.openSync(fifo, fs.constants.O_RDWR);
          const run = runInShell(box, prompt, `exec <'${fifo}'`);
          fs.writeSync(writer, input.slice(0, 20));
          await new Promise((resolve) => setTimeout(resolve, 300));
          fs.writeSync(writer, input.slice(20));
          fs.closeSync(writer);
          return run;
        },
      ],
    ];
    for (const [way, run] of ways) {
      const before = await requestsServed(box);
      assert.deepEqual(await run(), alone, `stdin from ${way}`);
      assert.equal(await requestsServed(box), before + 1, `the helper answered with stdin from ${way}`);
    }
    // A FIFO its writer never closes: the hook answers at its bound, as from a Node host.
    const writer = fs.openSync(fifo, fs.constants.O_RDWR);
    try {
      fs.writeSync(writer, input.slice(0, 20));
      const open = await runInShell(box, [...prompt, "--timeout-ms", "400"], `exec <'${fifo}'`);
      assert.deepEqual(open, {
        code: 0,
        signal: null,
        timedOut: false,
        stdout: "{}\n",
        stderr: "memdir: hook user-prompt-submit: timed out after 400 ms\n",
      });
    } finally {
      fs.closeSync(writer);
    }
  });
});

/** The helper's status lines: what it served and which memory dirs it loaded ahead. */
async function helperStatus(
  box: Box,
): Promise<{ requests: number; memoryDirs: string[]; preloaded: string[]; watchedForSync: string[] }> {
  const answer = await askHelper(box.paths, { op: "status" }, ANSWER_BOUND_MS);
  assert.equal(answer.kind, "answered");
  return answer.lines[0] as {
    requests: number;
    memoryDirs: string[];
    preloaded: string[];
    watchedForSync: string[];
  };
}

describe("memory helper: memory dirs loaded ahead of the first prompt", () => {
  it("loads the dir of the session start that started it, then answers its prompts as the process alone does", async () => {
    const box = makeBox();
    const dir = path.join(box.home, "memory");
    makeMemories(dir, "a");
    // No helper yet: session start runs in this process, starts a warm-up (no cache files) and
    // the helper, and either the helper's own preload or the warm-up's request loads the dir.
    const start = await box.run(["hook", "SessionStart", "--dir", dir], {
      input: JSON.stringify({ cwd: box.home }),
    });
    assert.equal(start.code, 0, start.stderr);
    assert.match(start.stderr, /memory helper started in the background/);
    await helperAnswering(box.paths, "the helper to answer");
    await waitFor(async () => (await helperStatus(box)).preloaded.includes(dir), {
      what: "the helper to load the memory dir ahead",
    });
    const status = await helperStatus(box);
    assert.equal(status.requests, 0, "loaded with no prompt asked");
    assert.deepEqual(status.memoryDirs, [dir]);
    const first = await assertSameBothWays(
      box,
      ["hook", "user-prompt-submit", "--dir", dir],
      promptInput(box.home, "how do we deploy to production"),
    );
    assert.match(first.stdout, /project-deploy-a\.md/);
  });

  it("loads a dir whose warm-up has finished, and one a session start through it names", async () => {
    const box = makeBox();
    const warmed = path.join(box.home, "warmed");
    const named = path.join(box.home, "named");
    makeMemories(warmed, "w");
    makeMemories(named, "n");
    await startHelper(box);
    // The warm-up asks the helper when it is done.
    const warmUp = await box.run(["warm-up", "--dir", warmed]);
    assert.equal(warmUp.code, 0, warmUp.stderr);
    await waitFor(async () => (await helperStatus(box)).preloaded.includes(warmed), {
      what: "the helper to load the warmed dir",
    });
    // Caches already warm (filled without the helper): the session start the helper answers
    // starts no warm-up and has the helper load the dir once idle.
    const alone = { MEMDIR_HELPER: "0" };
    assert.equal((await box.run(["warm-up", "--dir", named], { env: alone })).code, 0);
    assert.ok(!(await helperStatus(box)).memoryDirs.includes(named));
    const start = await box.run(["hook", "SessionStart", "--dir", named], {
      input: JSON.stringify({ cwd: box.home }),
    });
    assert.equal(start.code, 0, start.stderr);
    assert.doesNotMatch(start.stderr, /warm-up started/);
    await waitFor(async () => (await helperStatus(box)).preloaded.includes(named), {
      what: "the helper to load the dir its session start named",
    });
    await assertSameBothWays(
      box,
      ["hook", "user-prompt-submit", "--dir", named],
      promptInput(box.home, "who is oncall on monday"),
    );
  });
});

describe("memory helper: fallbacks", () => {
  it("answers right without a helper, with a killed one's stale socket, and with a stopped one", async () => {
    const box = makeBox();
    const dir = path.join(box.home, "memory");
    makeMemories(dir, "k");
    const args = ["hook", "user-prompt-submit", "--dir", dir, "--timeout-ms", "60000"];
    const input = promptInput(box.home, "how do we deploy to production");
    const alone = await box.run(args, { input, env: { MEMDIR_HELPER: "0" } });
    assert.match(alone.stdout, /project-deploy-k\.md/);

    // No helper yet: the prompt hook answers itself and starts one.
    assert.deepEqual(await box.run(args, { input }), alone);
    const pid = await helperAnswering(box.paths, "the helper the prompt hook started");

    // Stopped (SIGSTOP): the kernel still accepts the connection, nothing acknowledges it.
    process.kill(pid, "SIGSTOP");
    try {
      assert.deepEqual(await box.run(args, { input }), alone);
      assert.deepEqual(
        await box.run(["list", "--json", "--dir", dir]),
        await box.run(["list", "--json", "--dir", dir], { env: { MEMDIR_HELPER: "0" } }),
      );
    } finally {
      process.kill(pid, "SIGCONT");
    }

    // Killed: its socket file stays behind, refusing connections.
    process.kill(pid, "SIGKILL");
    await waitFor(() => processGone(pid), { what: "the killed helper to go" });
    assert.ok(fs.existsSync(box.paths.socket), "the stale socket file is there");
    assert.deepEqual(await box.run(args, { input }), alone);
    // … and a new helper took its place.
    await helperAnswering(box.paths, "a new helper", pid);
    assert.deepEqual(await box.run(args, { input }), alone);
  });

  it("does the work itself when the helper is busy with another session's long run", async () => {
    // Session A's prompt asks a model that answers only when the test drops the request: its run
    // holds the helper until then. (With A's bound at 4 s, session B's fresh process reached the
    // helper after A's run had ended on a loaded box, and the helper rightly answered it.)
    await using model = await startFakeModelServer([{ hang: true }]);
    const { box, prompt } = await boxWithMemories();
    const input = promptInput(box.home, "how do we deploy to production");
    const alone = await box.run(prompt, { input, env: { MEMDIR_HELPER: "0" } });
    const before = await requestsServed(box);
    const slow = box.run([...prompt, "--timeout-ms", "600000"], {
      input,
      env: {
        MEMDIR_PROVIDER: "anthropic",
        ANTHROPIC_API_KEY: "test",
        ANTHROPIC_BASE_URL: model.anthropicBaseURL,
      },
    });
    await waitFor(() => model.requests.length === 1, { what: "session A's run to ask the model" });
    // Session B's lexical prompt meanwhile: not acknowledged behind A's run, so it answers itself.
    assert.deepEqual(await box.run(prompt, { input }), alone);
    await model.close(); // A's model request fails: its run ends
    await slow;
    assert.equal(await requestsServed(box), before + 1, "the helper ran session A's prompt only");
  });

  it("starts one helper, not one per prompt, when many prompts find none", async () => {
    const box = makeBox();
    const dir = path.join(box.home, "memory");
    makeMemories(dir, "s");
    // Every node process of the box that starts as a helper notes its pid here (a preload).
    const noted = path.join(box.home, "helpers-started");
    const preload = path.join(box.home, "note-helper.cjs");
    fs.writeFileSync(
      preload,
      `if (process.argv.slice(-2).join(" ") === "helper serve") require("node:fs").appendFileSync(${JSON.stringify(noted)}, process.pid + "\\n");\n`,
    );
    const env = { NODE_OPTIONS: `--require ${preload}` };
    const input = promptInput(box.home, "how do we deploy to production");
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => box.run(["hook", "user-prompt-submit", "--dir", dir], { input, env })),
    );
    for (const answer of answers) assert.match(answer.stdout, /project-deploy-s\.md/);
    const pid = await helperAnswering(box.paths, "the helper the prompts started");
    assert.deepEqual(fs.readFileSync(noted, "utf8").trim().split("\n"), [String(pid)], "one helper started");
  });

  it("exits a hook whose host never closes stdin at its bound, with the in-process answer", async () => {
    const box = makeBox();
    await startHelper(box);
    const answer = await new Promise<CliResult>((resolve) => {
      const child: ChildProcess = spawn(
        process.execPath,
        [pkg.bin, "hook", "user-prompt-submit", "--timeout-ms", "400"],
        {
          cwd: box.home,
          env: { PATH: process.env.PATH ?? "", HOME: box.home },
          stdio: ["pipe", "pipe", "pipe"],
        },
      );
      let stdout = "";
      let stderr = "";
      child.stdout?.on("data", (d) => {
        stdout += d;
      });
      child.stderr?.on("data", (d) => {
        stderr += d;
      });
      child.stdin?.write('{"prompt": "never ends'); // and never closed
      child.on("close", (code) => resolve({ code, stdout, stderr }));
    });
    assert.deepEqual(answer, {
      code: 0,
      stdout: "{}\n",
      stderr: "memdir: hook user-prompt-submit: timed out after 400 ms\n",
    });
  });

  it("is not used with MEMDIR_HELPER=0, and never started by it", async () => {
    const box = makeBox(undefined, { MEMDIR_HELPER: "0" });
    const dir = path.join(box.home, "memory");
    makeMemories(dir, "z");
    const result = await box.run(["hook", "user-prompt-submit", "--dir", dir], {
      input: promptInput(box.home, "deploy"),
    });
    assert.equal(result.code, 0);
    await box.run(["hook", "session-start", "--dir", dir], { input: "{}" });
    assert.equal(fs.existsSync(box.paths.dir), false, "no helper folder, no helper");
  });
});

describe("memory helper: its life", () => {
  it("exits when idle, when its HOME is removed, and when a client of another build asks", async () => {
    const idle = makeBox();
    const idlePid = await startHelper(idle, { MEMDIR_HELPER_IDLE_MS: "300" });
    await waitFor(() => processGone(idlePid), { what: "the idle helper to exit" });
    assert.equal(fs.existsSync(idle.paths.socket), false, "it removed its socket");

    const gone = makeBox();
    const gonePid = await startHelper(gone);
    fs.rmSync(gone.home, { recursive: true, force: true });
    await waitFor(() => processGone(gonePid), { what: "the helper of a removed HOME to exit" });

    const other = makeBox();
    const otherPid = await startHelper(other);
    const answer = await askHelper(
      { ...other.paths, build: `${other.paths.build}-other` },
      { op: "status" },
      ANSWER_BOUND_MS,
    );
    assert.equal(answer.kind, "other-build");
    await waitFor(() => processGone(otherPid), { what: "the helper asked by another build to exit" });
  });

  it("exits when its build changes (a rebuild or an upgrade), and the next client gets a new one", async () => {
    // A package of its own, its build a copy: rebuilding it touches no other test's build.
    const own = makeTempDir("memdir-helper-rebuilt-");
    fs.cpSync(path.dirname(path.dirname(pkg.mainFile)), path.join(own, "dist"), { recursive: true });
    fs.cpSync(path.dirname(path.dirname(pkg.bin)), own, {
      recursive: true,
      filter: (source) => !source.endsWith("/dist") && !source.includes("/dist/"),
    });
    fs.symlinkSync(path.join(repo, "node_modules"), path.join(own, "node_modules"));
    const mainFile = path.join(own, "dist/cli/main.js");
    const home = makeTempDir("memdir-helper-home-");
    const before = helperPaths(home, mainFile);
    assert.ok(before);
    const run = (args: string[]) =>
      runProcess(process.execPath, [path.join(own, "bin/memdir.js"), ...args], {
        cwd: home,
        env: { PATH: process.env.PATH ?? "", HOME: home },
      });
    assert.equal((await run(["helper", "start"])).code, 0);
    const pid = await helperAnswering(before, "the helper");
    // The rebuild: cli/main.js made anew.
    fs.copyFileSync(mainFile, `${mainFile}.new`);
    fs.renameSync(`${mainFile}.new`, mainFile);
    await waitFor(() => processGone(pid), { what: "the helper of the old build to exit" });
    const after = helperPaths(home, mainFile);
    assert.ok(after && after.socket !== before.socket, "the new build has a socket of its own");
    const status = await run(["helper", "status", "--json"]);
    assert.equal((JSON.parse(status.stdout) as { running: boolean }).running, false);
  });

  it("runs once per key: a second one started beside it exits", async () => {
    const box = makeBox();
    const pid = await startHelper(box);
    const second = await box.run(["helper", "serve"]);
    assert.equal(second.code, 0);
    assert.match(second.stderr, /another helper already serves this key/);
    assert.equal(
      ((await askHelper(box.paths, { op: "status" }, ANSWER_BOUND_MS)) as { pid?: number }).pid,
      pid,
    );
    const stop = await box.run(["helper", "stop"]);
    assert.match(stop.stdout, new RegExp(`helper stopped \\(pid ${pid}\\)`));
    await waitFor(() => processGone(pid), { what: "the stopped helper to exit" });
  });

  it("keeps its socket in a folder only its user can enter, and refuses one others can", async () => {
    const box = makeBox();
    await startHelper(box);
    const folder = fs.lstatSync(box.paths.dir);
    assert.ok(folder.isDirectory());
    assert.equal(folder.mode & 0o777, 0o700);
    assert.equal(folder.uid, process.getuid?.());
    assert.ok(fs.lstatSync(box.paths.socket).isSocket());
    assert.ok(Buffer.byteLength(box.paths.socket) <= 103);

    const open = makeBox();
    fs.mkdirSync(open.paths.dir, { recursive: true, mode: 0o755 });
    fs.chmodSync(open.paths.dir, 0o755);
    const refused = await open.run(["helper", "serve"]);
    assert.match(refused.stderr, /is open to group or others/);
    assert.equal(fs.existsSync(open.paths.socket), false);
    // A socket planted there is not talked to: the client answers alone.
    const planted = net.createServer((socket) =>
      socket.end('{"ack":1}\n{"stdout":"planted","stderr":"","code":0}\n'),
    );
    await new Promise<void>((resolve) => planted.listen(open.paths.socket, resolve));
    try {
      const listed = await open.run(["list", "--dir", path.join(open.home, "none")]);
      assert.doesNotMatch(listed.stdout, /planted/);
      assert.match(listed.stdout, /no memories/);
    } finally {
      planted.close();
    }
  });

  it("moves its socket to the temp folder when HOME's path is too long for a socket address", async () => {
    const deep = path.join(makeTempDir("memdir-helper-deep-"), "h".repeat(90));
    fs.mkdirSync(deep);
    const box = makeBox(deep);
    assert.ok(!box.paths.socket.startsWith(deep));
    const pid = await startHelper(box);
    const dir = path.join(deep, "memory");
    makeMemories(dir, "d");
    await assertSameBothWays(box, ["list", "--json", "--dir", dir]);
    process.kill(pid, "SIGKILL");
  });
});

/**
 * Connects to `socketFile` as any process of the user could, writes `data` (if any) and resolves
 * to what came back once the helper closes the connection; fails after {@link ANSWER_BOUND_MS}
 * (a bound for a loaded box: the helper closing it is the event awaited).
 */
function plainClient(socketFile: string, data?: string | Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(socketFile);
    let received = "";
    const bound = setTimeout(() => {
      socket.destroy();
      reject(new Error(`the helper kept the connection open ${ANSWER_BOUND_MS} ms`));
    }, ANSWER_BOUND_MS);
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => {
      received += chunk;
    });
    // A refused write (the helper closed the connection mid-request) is part of being refused.
    socket.on("error", () => {});
    socket.on("close", () => {
      clearTimeout(bound);
      resolve(received);
    });
    if (data !== undefined) socket.write(data);
  });
}

describe("memory helper: who may ask it, and what a connection may hold", () => {
  it("is not stopped, asked or run by a process without its secret", async () => {
    const box = makeBox();
    const pid = await startHelper(box);
    const secret = fs.statSync(box.paths.secret);
    assert.equal(secret.mode & 0o777, 0o600, "the secret is readable by its user only");
    const line = (request: object) => `${JSON.stringify({ v: 2, build: box.paths.build, ...request })}\n`;
    // The build string is no secret (every part of it can be worked out): it alone is refused.
    assert.equal(await plainClient(box.paths.socket, line({ op: "stop" })), "");
    assert.equal(await plainClient(box.paths.socket, line({ op: "stop", secret: "0".repeat(64) })), "");
    assert.equal(await plainClient(box.paths.socket, line({ op: "status" })), "");
    assert.equal(
      await plainClient(box.paths.socket, line({ args: ["list"], cwd: box.home, env: { HOME: box.home } })),
      "",
    );
    // Nor does one claiming another build end it.
    assert.equal(await plainClient(box.paths.socket, line({ build: "another", op: "status" })), "");
    assert.equal(await requestsServed(box), 0, "nothing ran");
    assert.equal(
      ((await askHelper(box.paths, { op: "status" }, ANSWER_BOUND_MS)) as { pid?: number }).pid,
      pid,
    );
    // memdir's own client has the secret: it stops it.
    const stop = await box.run(["helper", "stop"]);
    assert.match(stop.stdout, new RegExp(`helper stopped \\(pid ${pid}\\)`));
    await waitFor(() => processGone(pid), { what: "the stopped helper to exit" });
    assert.equal(fs.existsSync(box.paths.secret), false, "it removed its secret");
  });

  it("refuses a request over 1 MB, closes a connection that sends nothing, and keeps serving", async () => {
    const { box, dir } = await boxWithMemories();
    const secret = fs.readFileSync(box.paths.secret, "utf8").trim();
    // A whole, well-formed status request with the secret, 2 MB long: refused for its size alone.
    const padded = `${JSON.stringify({ v: 2, build: box.paths.build, secret, op: "status", pad: "x".repeat(2 * 1024 * 1024) })}\n`;
    assert.equal(await plainClient(box.paths.socket, padded), "", "no answer to a 2 MB request");
    // The same request at its normal size is answered.
    const small = `${JSON.stringify({ v: 2, build: box.paths.build, secret, op: "status" })}\n`;
    assert.match(await plainClient(box.paths.socket, small), /^\{"ack":\d+\}\n/);
    // A connection that never sends its request is closed by the helper.
    assert.equal(await plainClient(box.paths.socket), "");
    await assertSameBothWays(box, ["list", "--json", "--dir", dir]);
  });
});

describe("memory helper: memdir sync", () => {
  it("tells memdir sync the memory dir is unchanged, and a change made by hand is still pushed", async () => {
    const box = makeBox();
    const project = path.join(box.home, "work", "shop");
    fs.mkdirSync(project, { recursive: true });
    gitIn(project, ["init", "-q"]);
    gitIn(project, ["remote", "add", "origin", "git@github.com:acme/shop.git"]);
    const remote = path.join(box.home, "memory-remote.git");
    gitIn(box.home, ["init", "-q", "--bare", remote]);
    const init = await box.run(["sync", "init", `file://${remote}`], { cwd: project });
    assert.equal(init.code, 0, init.stderr);
    const memoryDir = path.join(box.home, ".claude", "projects", sanitizeProjectPath(project), "memory");
    writeMemory(memoryDir, "project-deploys.md", memory("deploys run on fridays", "from main", "project"));
    writeMemory(memoryDir, "user-tabs.md", memory("tabs", "two spaces", "user"));
    await startHelper(box);
    const sync = async () => {
      const result = await box.run(["sync", "--json"], { cwd: project });
      assert.equal(result.code, 0, result.stderr);
      return JSON.parse(result.stdout) as { pushed: number; pulled: number };
    };
    assert.equal((await sync()).pushed, 2);
    assert.deepEqual(
      (await helperStatus(box)).watchedForSync,
      [fs.realpathSync(memoryDir)],
      "the sync asked the helper to watch its memory dir",
    );
    // The sync's stat cache, made unreadable: a sync that reads the memory dir rewrites it.
    const syncRoot = path.join(box.home, ".claude", "sync");
    const statCaches = (fs.readdirSync(syncRoot, { recursive: true }) as string[])
      .filter((file) => path.basename(file) === "stat-cache.json")
      .map((file) => path.join(syncRoot, file));
    assert.equal(statCaches.length, 1);
    fs.writeFileSync(statCaches[0], "not the cache");
    assert.deepEqual(await sync(), {
      remote: `file://${remote}`,
      pulled: 0,
      pushed: 0,
      conflicts: [],
      skipped: [],
    });
    assert.equal(fs.readFileSync(statCaches[0], "utf8"), "not the cache", "the helper vouched: nothing read");
    // An editor's save that keeps the size and puts the modification time back.
    const file = path.join(memoryDir, "project-deploys.md");
    const before = fs.statSync(file);
    fs.writeFileSync(file, memory("deploys run on mondays", "from main", "project"));
    fs.utimesSync(file, before.atime, before.mtime);
    assert.equal(fs.statSync(file).size, before.size);
    assert.equal((await sync()).pushed, 1);
    assert.match(gitIn(remote, ["show", "main:github.com/acme/shop/project-deploys.md"]), /mondays/);
    assert.doesNotThrow(() => JSON.parse(fs.readFileSync(statCaches[0], "utf8")), "read and written again");
  });
});
