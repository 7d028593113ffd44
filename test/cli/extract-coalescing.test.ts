import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { after, describe, it } from "node:test";
import { type FakeStep, startFakeModelServer } from "../../src/testing/index.ts";
import type { Message } from "../../src/types.ts";
import { type CliResult, runCli } from "../helpers/cli.ts";
import { cliNodeArgs } from "../helpers/node-entry.ts";
import { makeTempDir, writeTree } from "../helpers/temp.ts";

// Cross-process extraction (docs/design.md#coalescing for agents whose Stop hook starts `memdir extract` after each
// turn): a cursor per transcript, one extraction at a time per memory dir, one trailing run.

const MEMORY_TEXT =
  "---\ndescription: Integration tests hit a real database\ntype: feedback\n---\nNever mock the database.\n";

function messageLine(message: Message): string {
  return `${JSON.stringify({ type: "message", sessionId: "session-1", message })}\n`;
}

const FIRST_TURN: Message[] = [
  { id: "m1", role: "user", content: "Integration tests must hit a real database, never a mock." },
  {
    id: "m2",
    role: "assistant",
    content: [{ type: "text", text: "Understood, real database from now on." }],
  },
];
const SECOND_TURN: Message[] = [
  { id: "m3", role: "user", content: "Also: we deploy only on Tuesdays." },
  { id: "m4", role: "assistant", content: [{ type: "text", text: "Noted: Tuesday deploys." }] },
];

function setup() {
  const home = makeTempDir("memdir-extract-queue-");
  const project = path.join(home, "shop");
  const memoryDir = path.join(home, "memory");
  writeTree(project, { "README.md": "shop\n" });
  fs.mkdirSync(memoryDir, { recursive: true });
  const transcript = path.join(home, "session-1.jsonl");
  fs.writeFileSync(transcript, FIRST_TURN.map(messageLine).join(""));
  const grow = (messages: Message[]) => fs.appendFileSync(transcript, messages.map(messageLine).join(""));
  return { home, project, memoryDir, transcript, grow };
}

async function modelServer(script: FakeStep[]) {
  const server = await startFakeModelServer(script);
  after(() => server.close());
  return { server, env: { ANTHROPIC_API_KEY: "test-key", ANTHROPIC_BASE_URL: server.anthropicBaseURL } };
}

/** A scripted run that saves one memory file: a Write, then a closing line. */
function savingRun(memoryDir: string, file: string): FakeStep[] {
  return [
    { toolCall: { name: "Write", input: { file_path: path.join(memoryDir, file), content: MEMORY_TEXT } } },
    "Saved.",
  ];
}

/** A step that holds its request open until `release()`, and says when it has arrived. */
function gate() {
  let arrived!: () => void;
  let release!: () => void;
  const reached = new Promise<void>((resolve) => {
    arrived = resolve;
  });
  const opened = new Promise<void>((resolve) => {
    release = resolve;
  });
  const hold =
    (then: FakeStep): FakeStep =>
    async () => {
      arrived();
      await opened;
      return then;
    };
  return { reached, release, hold };
}

/** Starts the CLI as a child we can watch and kill (runCli only gives the result). */
function startCli(args: string[], options: { home: string; cwd: string; env: Record<string, string> }) {
  const child: ChildProcess = spawn(process.execPath, [...cliNodeArgs(), ...args], {
    cwd: options.cwd,
    env: { PATH: process.env.PATH ?? "", HOME: options.home, NO_COLOR: "1", ...options.env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
    stdout += chunk;
  });
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
  });
  const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
  const done = new Promise<CliResult>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
  return { child, done };
}

function extractArgs(transcript: string, memoryDir: string, ...more: string[]): string[] {
  return ["extract", "--transcript", transcript, "--dir", memoryDir, "--json", ...more];
}

function memoryFiles(memoryDir: string): string[] {
  return fs
    .readdirSync(memoryDir)
    .filter((name) => name.endsWith(".md"))
    .sort();
}

describe("memdir extract: the cursor", () => {
  it("makes no model call for a transcript with nothing new, and sends only the count of new messages once it grows", async () => {
    const { home, project, memoryDir, transcript, grow } = setup();
    const { server, env } = await modelServer([
      ...savingRun(memoryDir, "feedback-real-database.md"),
      "Nothing new worth saving.",
      "Nothing new worth saving.",
    ]);
    const run = () => runCli(extractArgs(transcript, memoryDir), { home, cwd: project, env });

    const first = await run();
    assert.equal(first.code, 0, first.stderr);
    const firstReport = JSON.parse(first.stdout);
    assert.equal(firstReport.status, "done");
    assert.deepEqual(firstReport.saved, ["feedback-real-database.md"]);
    assert.equal(firstReport.cursor, "m2");
    assert.equal(server.requests.length, 2);
    assert.match(server.requests[0].userText, /newest 2 messages/);

    const again = await run();
    assert.equal(again.code, 0, again.stderr);
    const againReport = JSON.parse(again.stdout);
    assert.equal(againReport.status, "up-to-date");
    assert.equal(againReport.turns, 0);
    assert.equal(server.requests.length, 2, "no model call when nothing is new");

    grow(SECOND_TURN);
    const grown = await run();
    assert.equal(grown.code, 0, grown.stderr);
    assert.equal(JSON.parse(grown.stdout).cursor, "m4");
    assert.equal(server.requests.length, 3);
    assert.match(server.requests[2].userText, /newest 2 messages/, "only the two new messages count");

    // Explicit runs can ignore the cursor.
    const all = await run().then(() =>
      runCli(extractArgs(transcript, memoryDir, "--all"), { home, cwd: project, env }),
    );
    assert.equal(all.code, 0, all.stderr);
    assert.equal(server.requests.length, 4, "the plain run was up to date; --all made one call");
    assert.match(server.requests[3].userText, /newest 4 messages/);
    assert.deepEqual(memoryFiles(memoryDir), ["feedback-real-database.md"]);
  });

  it("says in plain text when there is nothing new", async () => {
    const { home, project, memoryDir, transcript } = setup();
    const { env } = await modelServer(["Nothing worth saving."]);
    await runCli(extractArgs(transcript, memoryDir), { home, cwd: project, env });
    const again = await runCli(["extract", "--transcript", transcript, "--dir", memoryDir], {
      home,
      cwd: project,
      env,
    });
    assert.equal(again.code, 0, again.stderr);
    assert.equal(again.stdout, "Nothing new since the last extraction\n");
  });

  it("skips, without a model call, new messages in which the agent saved a memory itself", async () => {
    const { home, project, memoryDir, transcript, grow } = setup();
    const { server, env } = await modelServer(["Nothing worth saving."]);
    await runCli(extractArgs(transcript, memoryDir), { home, cwd: project, env });
    grow([
      { id: "m3", role: "user", content: "remember that we deploy only on Tuesdays" },
      {
        id: "m4",
        role: "assistant",
        content: [
          {
            type: "tool_use",
            id: "t1",
            name: "Write",
            input: { file_path: path.join(memoryDir, "project-deploys.md"), content: "Tuesdays" },
          },
        ],
      },
    ]);
    const result = await runCli(extractArgs(transcript, memoryDir), { home, cwd: project, env });
    assert.equal(result.code, 0, result.stderr);
    const report = JSON.parse(result.stdout);
    assert.equal(report.status, "skipped");
    assert.equal(report.cursor, "m4");
    assert.equal(server.requests.length, 1);
  });

  it("does not advance the cursor when the run fails, so the next run covers the same messages", async () => {
    const { home, project, memoryDir, transcript } = setup();
    const { server, env } = await modelServer([
      { error: 400, message: "bad request" },
      "Nothing worth saving.",
    ]);
    const failed = await runCli(extractArgs(transcript, memoryDir), { home, cwd: project, env });
    assert.equal(failed.code, 1);
    assert.equal(JSON.parse(failed.stdout).status, "failed");
    const retried = await runCli(extractArgs(transcript, memoryDir), { home, cwd: project, env });
    assert.equal(retried.code, 0, retried.stderr);
    assert.equal(JSON.parse(retried.stdout).status, "done");
    assert.equal(server.requests.length, 2);
    assert.match(server.requests[1].userText, /newest 2 messages/);
  });
});

describe("memdir extract: one extraction at a time per memory dir", () => {
  it("queues requests that arrive during a run; the running one makes exactly one trailing run over what arrived", async () => {
    const { home, project, memoryDir, transcript, grow } = setup();
    const first = gate();
    const [write, close] = savingRun(memoryDir, "feedback-real-database.md");
    const { server, env } = await modelServer([
      first.hold(write),
      close,
      ...savingRun(memoryDir, "project-tuesday-deploys.md"),
    ]);
    const holder = startCli(extractArgs(transcript, memoryDir), { home, cwd: project, env });
    await first.reached; // the holder is inside its first model call, and stays there

    grow(SECOND_TURN);
    // Two more turns end while it runs: both exit at once, leaving their request behind.
    for (const _ of [1, 2]) {
      const queued = await runCli(extractArgs(transcript, memoryDir), { home, cwd: project, env });
      assert.equal(queued.code, 0, queued.stderr);
      assert.equal(JSON.parse(queued.stdout).status, "queued");
      assert.equal(server.requests.length, 1, "no second extraction while one runs");
    }

    first.release();
    const result = await holder.done;
    assert.equal(result.code, 0, result.stderr);
    const report = JSON.parse(result.stdout);
    assert.deepEqual(report.saved, ["feedback-real-database.md"]);
    assert.equal(report.trailing.length, 1, "one trailing run for both queued requests");
    assert.equal(report.trailing[0].status, "done");
    assert.deepEqual(report.trailing[0].saved, ["project-tuesday-deploys.md"]);
    assert.equal(server.requests.length, 4);
    assert.match(
      server.requests[2].userText,
      /newest 2 messages/,
      "the trailing run covers only the new turn",
    );
    assert.deepEqual(memoryFiles(memoryDir), ["feedback-real-database.md", "project-tuesday-deploys.md"]);
    const state = path.join(memoryDir, ".memdir-extract");
    assert.deepEqual(fs.readdirSync(state).sort(), ["cursors", "pending"], "the lock is gone");
    assert.deepEqual(fs.readdirSync(path.join(state, "pending")), [], "no request left waiting");
  });

  it("two processes started at once: one model run, the other queued, its trailing run finds nothing new", async () => {
    const { home, project, memoryDir, transcript } = setup();
    const first = gate();
    const [write, close] = savingRun(memoryDir, "feedback-real-database.md");
    const { server, env } = await modelServer([first.hold(write), close]);
    const a = startCli(extractArgs(transcript, memoryDir), { home, cwd: project, env });
    const b = startCli(extractArgs(transcript, memoryDir), { home, cwd: project, env });
    await first.reached;
    // Whichever did not get the lock leaves while the other is held inside its model call.
    const queued = await Promise.race([a.done, b.done]);
    assert.equal(queued.code, 0, queued.stderr);
    assert.equal(JSON.parse(queued.stdout).status, "queued");
    assert.equal(server.requests.length, 1);

    first.release();
    const [ra, rb] = await Promise.all([a.done, b.done]);
    const ran = [ra, rb].map((r) => JSON.parse(r.stdout)).find((r) => r.status !== "queued");
    assert.ok(ran, "one of them ran");
    assert.equal(ran.status, "done");
    assert.deepEqual(
      ran.trailing.map((t: { status: string }) => t.status),
      ["up-to-date"],
      "the queued request is run once and needs no model call",
    );
    assert.equal(server.requests.length, 2, "the one run's two model calls, nothing more");
    assert.deepEqual(memoryFiles(memoryDir), ["feedback-real-database.md"], "saved once");
  });

  it("takes over the lock of a holder that was killed, and covers the messages it never finished", async () => {
    const { home, project, memoryDir, transcript } = setup();
    const first = gate();
    const { server, env } = await modelServer([
      first.hold("never answered"),
      ...savingRun(memoryDir, "feedback-real-database.md"),
    ]);
    const killed = startCli(extractArgs(transcript, memoryDir), { home, cwd: project, env });
    await first.reached;
    const lockFile = path.join(memoryDir, ".memdir-extract", "lock");
    assert.equal(fs.readFileSync(lockFile, "utf8").split("\n")[0], String(killed.child.pid));
    killed.child.kill("SIGKILL");
    await killed.done;

    const result = await runCli(extractArgs(transcript, memoryDir), { home, cwd: project, env });
    assert.equal(result.code, 0, result.stderr);
    const report = JSON.parse(result.stdout);
    assert.equal(report.status, "done");
    assert.equal(report.cursor, "m2");
    assert.match(server.requests[1].userText, /newest 2 messages/);
    assert.deepEqual(memoryFiles(memoryDir), ["feedback-real-database.md"]);
    assert.equal(fs.existsSync(lockFile), false, "released after the run");
    first.release();
  });
});
