// Long jobs show how far they are on a terminal, and only there (docs/design.md#progress): a
// pipe, a program reading --json and the hooks see nothing of it.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { terminalProgress } from "../../src/cli/support/progress.ts";
import { runCli, runProcess } from "../helpers/cli.ts";
import { memory, writeMemory } from "../helpers/memory.ts";
import { cliNodeArgs } from "../helpers/node-entry.ts";
import { initBoth, makeWorld } from "../helpers/sync-machines.ts";
import { makeTempDir } from "../helpers/temp.ts";

const COUNT = 300;

/** A fresh memory dir of COUNT memories (nothing cached yet: every header and body is read). */
function memoryDir(): { home: string; dir: string } {
  const home = makeTempDir();
  const dir = path.join(home, "memory");
  for (let i = 0; i < COUNT; i++)
    writeMemory(
      dir,
      `deploy-${i}.md`,
      memory(`deploy pipeline note ${i}`, `the staging deploy step ${i}`, "project"),
    );
  return { home, dir };
}

const quote = (arg: string) => `'${arg.replaceAll("'", "'\\''")}'`;

/** Runs the CLI with stdout and stderr on a pseudo-terminal (util-linux `script`), as a user's shell does. */
function runOnTerminal(args: string[], home: string, cwd = home) {
  const command = [process.execPath, ...cliNodeArgs(), ...args].map(quote).join(" ");
  return runProcess("script", ["-qfec", command, "/dev/null"], {
    cwd,
    env: {
      PATH: process.env.PATH ?? "",
      HOME: home,
      NO_COLOR: "1",
      MEMDIR_HELPER: "0",
      // Shown from the first slice, so a 300-file directory shows it on any box.
      MEMDIR_PROGRESS_AFTER_MS: "0",
    },
  });
}

describe("progress on a terminal", () => {
  it("list, doctor and recall draw their counts on a terminal and end each with its total", async () => {
    const { home, dir } = memoryDir();
    const list = await runOnTerminal(["list", "--dir", dir, "--limit", "1"], home);
    assert.equal(list.code, 0, list.stdout);
    assert.match(list.stdout, new RegExp(`memdir: reading memory headers ${COUNT}/${COUNT}, done`));

    const doctor = await runOnTerminal(["doctor", "--dir", dir], home);
    assert.match(doctor.stdout, new RegExp(`memdir: checking memories ${COUNT}/${COUNT}, done`));

    const recall = await runOnTerminal(["recall", "how does the staging deploy work", "--dir", dir], home);
    assert.equal(recall.code, 0, recall.stdout);
    assert.match(recall.stdout, new RegExp(`memdir: indexing memories ${COUNT}/${COUNT}, done`));
  });

  it("import draws its count on a terminal and ends with the total; with --json it draws nothing", async () => {
    const home = makeTempDir();
    const source = path.join(home, "mem0.json");
    const items = Array.from({ length: COUNT }, (_, i) => ({
      id: `m${i}`,
      memory: `Fact ${i}: deploy host ${i} runs service ${i * 7}`,
    }));
    fs.writeFileSync(source, JSON.stringify(items));
    const imported = await runOnTerminal(
      ["import", "mem0", "--from", source, "--dir", path.join(home, "a")],
      home,
    );
    assert.equal(imported.code, 0, imported.stdout);
    assert.match(imported.stdout, new RegExp(`memdir: importing memories ${COUNT}/${COUNT}, done`));
    assert.match(imported.stdout, new RegExp(`imported ${COUNT}, merged 0, skipped 0`));

    const json = await runOnTerminal(
      ["import", "mem0", "--from", source, "--dir", path.join(home, "b"), "--json"],
      home,
    );
    assert.equal(json.code, 0, json.stdout);
    assert.doesNotMatch(json.stdout, /memdir: importing/);
    assert.match(json.stdout, /"imported": \[/);
  });

  it("draws nothing with --json on a terminal, nor into a pipe", async () => {
    const { home, dir } = memoryDir();
    const json = await runOnTerminal(["list", "--dir", dir, "--json"], home);
    assert.equal(json.code, 0, json.stdout);
    assert.doesNotMatch(json.stdout, /memdir: reading/);

    const other = memoryDir();
    const piped = await runCli(["recall", "how does the staging deploy work", "--dir", other.dir], {
      home: other.home,
      env: { MEMDIR_PROGRESS_AFTER_MS: "0" },
    });
    assert.equal(piped.code, 0, piped.stderr);
    assert.doesNotMatch(piped.stderr, /memdir: (reading|indexing)/);
    assert.match(piped.stdout, /deploy-\d+\.md/, "the control: the recall itself ran and read the memories");
  });

  it("sync draws reading and hashing the memory files on one machine and writing the pulled ones on the other, never with --json nor into a pipe", async () => {
    const world = makeWorld();
    await initBoth(world);
    for (let i = 0; i < COUNT; i++)
      world.a.write(
        `deploy-${i}.md`,
        memory(`deploy pipeline note ${i}`, `the staging deploy step ${i}`, "project"),
      );
    const pushed = await runOnTerminal(["sync"], world.a.home, world.a.project);
    assert.equal(pushed.code, 0, pushed.stdout);
    assert.match(
      pushed.stdout,
      new RegExp(`memdir: reading and hashing memory files ${COUNT}/${COUNT}, done`),
    );

    const pulled = await runOnTerminal(["sync"], world.b.home, world.b.project);
    assert.equal(pulled.code, 0, pulled.stdout);
    assert.match(pulled.stdout, new RegExp(`memdir: writing pulled files ${COUNT}/${COUNT}, done`));
    assert.equal(world.b.files().length, COUNT, "the control: every memory arrived");

    const json = await runOnTerminal(["sync", "--json"], world.a.home, world.a.project);
    assert.equal(json.code, 0, json.stdout);
    assert.doesNotMatch(json.stdout, /memdir: reading/);
    const piped = await world.a.memdir(["sync"], { env: { MEMDIR_PROGRESS_AFTER_MS: "0" } });
    assert.equal(piped.code, 0, piped.stderr);
    assert.doesNotMatch(piped.stderr, /memdir: reading/);
  });

  it("stays silent for the first second, then redraws at most every 100 ms, and ends with the total", () => {
    const written: string[] = [];
    let now = 0;
    const progress = terminalProgress(
      { io: { stdout: () => {}, stderr: (text) => written.push(text), stderrIsTTY: true }, env: {} },
      {},
      () => now,
    );
    assert.ok(progress);
    now = 999;
    progress("indexing memories", 10, 100);
    assert.deepEqual(written, [], "a job that ends within a second prints nothing");
    now = 1000;
    progress("indexing memories", 20, 100);
    now = 1050;
    progress("indexing memories", 30, 100);
    now = 1100;
    progress("indexing memories", 40, 100);
    progress("indexing memories", 100, 100);
    assert.deepEqual(written, [
      "\r\x1b[Kmemdir: indexing memories 20/100",
      "\r\x1b[Kmemdir: indexing memories 40/100",
      "\r\x1b[Kmemdir: indexing memories 100/100, done\n",
    ]);
    const io = { stdout: () => {}, stderr: () => {} };
    assert.equal(terminalProgress({ io: { ...io, stderrIsTTY: false }, env: {} }, {}), undefined);
    assert.equal(terminalProgress({ io: { ...io, stderrIsTTY: true }, env: {} }, { json: true }), undefined);
  });
});
