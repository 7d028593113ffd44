// One lock-file lease for every lock. A long holder
// keeps its lease fresh, a writer whose lease was taken over writes nothing, a PID reused by a
// younger process does not hold a lease, and a memory file and its index line change together
// or not at all (a write limit makes the index write fail, as a full disk would).
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import { isMemdirError } from "../../src/errors.ts";
import { applyIndexChanges, parseIndex } from "../../src/memdir/format/index-file.ts";
import { ownProcessStartMs, readLeaseHolder, tryTakeLease } from "../../src/memdir/fs/lease.ts";
import { WRITE_LOCK_FILE, withMemoryLock } from "../../src/memdir/fs/lock.ts";
import { saveMemory } from "../../src/memdir/write/write.ts";
import { runCli, startProcess } from "../helpers/cli.ts";
import { cliNodeArgs, nodeArgsFor } from "../helpers/node-entry.ts";
import { recordReliability } from "../helpers/reliability-counts.ts";
import { makeTempDir } from "../helpers/temp.ts";
import { waitFor } from "../helpers/wait.ts";

const holdLockWorker = path.join(import.meta.dirname, "workers/hold-lock.ts");

function memoryDir(): string {
  const dir = path.join(makeTempDir(), "memory");
  fs.mkdirSync(dir);
  return dir;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const indexFiles = (dir: string) =>
  parseIndex(fs.readFileSync(path.join(dir, "MEMORY.md"), "utf8"))
    .map((entry) => entry.file)
    .sort();

describe("the lock-file lease", () => {
  it("a long holder keeps its lease fresh: a writer with a short stale limit waits instead of taking over", async () => {
    const dir = memoryDir();
    // A stale limit far below the hold, yet with room for a refresh timer on a loaded box (the
    // refresh runs every third of it; 300 ms was too tight at a load average of 38).
    const lock = { staleMs: 1_500, timeoutMs: 20_000 };
    let releasedAt = 0;
    const holder = withMemoryLock(
      dir,
      async () => {
        await sleep(4_000); // over two and a half stale limits
        await saveMemory(dir, { file: "project-a.md", type: "project", description: "a", body: "a" });
        releasedAt = Date.now();
      },
      lock,
    );
    await sleep(50);
    let waiterDoneAt = 0;
    const waiter = saveMemory(
      dir,
      { file: "project-b.md", type: "project", description: "b", body: "b" },
      { lock },
    ).then(() => {
      waiterDoneAt = Date.now();
    });
    await Promise.all([holder, waiter]);
    recordReliability("races", { tried: 2, losses: 2 - indexFiles(dir).length });
    // Not refreshed, the lease looked stale after 1.5 s and the waiter saved while the holder slept.
    assert.ok(releasedAt > 0 && waiterDoneAt >= releasedAt, "the waiter ran only after the holder let go");
    assert.deepEqual(indexFiles(dir), ["project-a.md", "project-b.md"], "no index line was lost");
  });

  it("a writer whose lease was taken over writes neither the file nor the index (lock-lost)", async () => {
    const dir = memoryDir();
    await saveMemory(dir, { file: "project-a.md", type: "project", description: "a", body: "a" });
    const indexBefore = fs.readFileSync(path.join(dir, "MEMORY.md"), "utf8");
    await assert.rejects(
      withMemoryLock(dir, async () => {
        // Another process judged us stale and took the lock.
        fs.writeFileSync(path.join(dir, WRITE_LOCK_FILE), `1\n${os.hostname()}\n0\nnow\nforeign\n`);
        await saveMemory(dir, { file: "project-b.md", type: "project", description: "b", body: "b" });
      }),
      (error: unknown) => isMemdirError(error, "lock-lost") && /taken over/.test((error as Error).message),
    );
    assert.equal(fs.existsSync(path.join(dir, "project-b.md")), false);
    assert.equal(fs.readFileSync(path.join(dir, "MEMORY.md"), "utf8"), indexBefore);
    // The foreign holder's lock is not ours to remove.
    assert.match(fs.readFileSync(path.join(dir, WRITE_LOCK_FILE), "utf8"), /foreign/);
  });

  it("is created with its holder inside: PID, host and process start time", async () => {
    const lockPath = path.join(memoryDir(), "x.lock");
    const lease = await tryTakeLease(lockPath, { staleMs: 30_000 });
    assert.ok(lease);
    const holder = await readLeaseHolder(lockPath);
    assert.equal(holder?.pid, process.pid);
    assert.equal(holder?.host, os.hostname());
    // The start time a judge reads from /proc for this PID (or Node's time origin off Linux), and
    // near the time origin (the boot time in /proc is whole seconds, so up to 1 s early).
    assert.equal(holder?.processStartMs, ownProcessStartMs());
    assert.ok(Math.abs((holder?.processStartMs ?? 0) - performance.timeOrigin) < 2000);
    assert.equal(await tryTakeLease(lockPath, { staleMs: 30_000 }), null, "a live holder keeps it");
    await lease.release();
    assert.equal(fs.existsSync(lockPath), false);
  });

  it("a PID now used by a younger process does not hold the lease", async (t) => {
    if (process.platform !== "linux") return t.skip("process start times are read from /proc (Linux only)");
    const lockPath = path.join(memoryDir(), "x.lock");
    const anHourEarlier = Math.round(performance.timeOrigin) - 3_600_000;
    fs.writeFileSync(lockPath, `${process.pid}\n${os.hostname()}\n${anHourEarlier}\n2026-01-01\nold\n`);
    const lease = await tryTakeLease(lockPath, { staleMs: 30_000 });
    assert.ok(lease, "the old holder's lock was taken over");
    assert.equal((await readLeaseHolder(lockPath))?.processStartMs, ownProcessStartMs());
    await lease.release();
  });

  // A holder started through a wrapper that took a while to exec node (a hook's shell script, or
  // just a loaded box between fork and Node's start) wrote its Node time origin, while a judge
  // reads the PID's start from /proc, which counts from the fork: more than 2 s apart, the live
  // holder looked like a younger process on a reused PID, its lock was taken over and its save
  // failed with lock-lost (the write-concurrency flake at load ~20).
  it("a live holder whose node started seconds after its process did keeps its lease", async (t) => {
    if (process.platform !== "linux") return t.skip("process start times are read from /proc (Linux only)");
    const dir = memoryDir();
    const args = [process.execPath, ...nodeArgsFor(holdLockWorker), dir];
    const quoted = args.map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(" ");
    const holder = startProcess("sh", ["-c", `sleep 2.5; exec ${quoted}`], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? "" },
      timeoutMs: 60_000,
    });
    try {
      await waitFor(() => holder.output().stdout.includes("held\n"), {
        what: `the holder's lock (${holder.output().stderr})`,
        timeout: 55_000,
      });
      const taken = await tryTakeLease(path.join(dir, WRITE_LOCK_FILE), { staleMs: 30_000 });
      await taken?.release();
      holder.child.stdin.end();
      const { stdout, stderr } = await holder.result;
      recordReliability("races", { tried: 1, losses: stdout.includes("saved") ? 0 : 1 });
      assert.equal(taken, null, "the live holder's lease was not taken over");
      assert.equal(stdout, "held\nsaved\n", stderr);
      assert.deepEqual(indexFiles(dir), ["project-holder.md"]);
    } finally {
      holder.child.kill("SIGKILL");
    }
  });

  it("an empty lock (an O_EXCL holder between create and write) is taken over only after 10 s", async () => {
    const lockPath = path.join(memoryDir(), "x.lock");
    fs.writeFileSync(lockPath, "");
    assert.equal(await tryTakeLease(lockPath, { staleMs: 30_000 }), null);
    const elevenSecondsAgo = (Date.now() - 11_000) / 1000;
    fs.utimesSync(lockPath, elevenSecondsAgo, elevenSecondsAgo);
    const lease = await tryTakeLease(lockPath, { staleMs: 30_000 });
    assert.ok(lease);
    await lease.release();
  });
});

describe("a memory and its index line change together", () => {
  it("when MEMORY.md cannot be written, memdir add leaves no memory file and a retry makes no -2 copy", async () => {
    const home = makeTempDir();
    const dir = memoryDir();
    // 150 long lines (~15 KB, inside the index limits): the new index is larger than the
    // child's file-size limit while the memory itself is far smaller, as on a nearly full disk.
    const lines = Array.from(
      { length: 150 },
      (_, i) => `- [Entry ${i}](project-${i}.md) — ${"hook text ".repeat(8)}`,
    );
    fs.writeFileSync(path.join(dir, "MEMORY.md"), `${lines.join("\n")}\n`);
    const indexBefore = fs.readFileSync(path.join(dir, "MEMORY.md"), "utf8");
    const args = [
      "add",
      "--dir",
      dir,
      "--type",
      "project",
      "--description",
      "deploys on fridays",
      "Release train.",
    ];
    const limited = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      // `ulimit -f 16` (8–16 KB, by the shell's block size), SIGXFSZ ignored: a write past the limit fails with EFBIG.
      const quoted = [process.execPath, ...cliNodeArgs(), ...args].map(
        (a) => `'${a.replace(/'/g, "'\\''")}'`,
      );
      const child = spawn("sh", ["-c", `trap '' XFSZ; ulimit -f 16; exec ${quoted.join(" ")}`], {
        env: { PATH: process.env.PATH ?? "", HOME: home, NO_COLOR: "1" },
      });
      let stderr = "";
      child.stderr.setEncoding("utf8").on("data", (d: string) => {
        stderr += d;
      });
      child.on("close", (code) => resolve({ code, stderr }));
    });
    assert.equal(limited.code, 1, limited.stderr);
    assert.match(limited.stderr, /^memdir: write: cannot write .*MEMORY\.md: EFBIG/m);
    // memdir's own state (the history repository the add recorded into) aside, only the index is there.
    assert.deepEqual(
      fs
        .readdirSync(dir)
        .filter((name) => !name.startsWith("."))
        .sort(),
      ["MEMORY.md"],
      "the memory file was rolled back",
    );
    assert.equal(fs.readFileSync(path.join(dir, "MEMORY.md"), "utf8"), indexBefore);

    const retry = await runCli([...args, "--json"], { home });
    assert.equal(retry.code, 0, retry.stderr);
    assert.equal(JSON.parse(retry.stdout).file, "project-deploys-fridays.md");
    assert.deepEqual(
      fs
        .readdirSync(dir)
        .filter((name) => !name.startsWith("."))
        .sort(),
      ["MEMORY.md", "project-deploys-fridays.md"],
      "no -2 copy",
    );
  });
});

describe("doctor --fix changes the index in one pass", () => {
  it("applyIndexChanges drops dead and duplicate lines and appends missing ones, keeping other lines", () => {
    const text = "# Memory\n- [A](a.md) — a\n- [Gone](gone.md) — x\nsome prose\n- [A again](a.md) — a\n\n";
    const updated = applyIndexChanges(text, {
      remove: new Set(["gone.md"]),
      add: [
        { title: "B", file: "b.md", hook: "b" },
        { title: "A", file: "a.md", hook: "already there" },
      ],
    });
    assert.equal(updated, "# Memory\n- [A](a.md) — a\nsome prose\n- [B](b.md) — b\n");
    assert.equal(applyIndexChanges("- [A](a.md) — a", {}), "- [A](a.md) — a", "no change, same text");
  });

  it("repairs 2,000 missing and 300 dead pointers in one run", async () => {
    const home = makeTempDir();
    const dir = memoryDir();
    const dead = Array.from({ length: 300 }, (_, i) => `- [Gone ${i}](gone-${i}.md) — x`);
    fs.writeFileSync(path.join(dir, "MEMORY.md"), `${dead.join("\n")}\n`);
    for (let i = 0; i < 2_000; i++)
      fs.writeFileSync(
        path.join(dir, `project-${i}.md`),
        `---\ndescription: note ${i}\ntype: project\n---\nbody\n`,
      );
    const fix = await runCli(["doctor", "--fix", "--dir", dir], { home, timeoutMs: 120_000 });
    assert.equal(fix.stderr, "");
    assert.equal(fix.stdout.match(/^fixed: /gm)?.length, 2_300);
    const files = indexFiles(dir);
    assert.equal(files.length, 2_000);
    assert.ok(files.every((file) => file.startsWith("project-")));
    // What is left is the index's size (2,000 lines, over its 200-line load limit), nothing to fix.
    const again = await runCli(["doctor", "--json", "--dir", dir], { home });
    const codes = new Set((JSON.parse(again.stdout).issues as { code: string }[]).map((issue) => issue.code));
    assert.ok(
      !codes.has("dead-pointer") && !codes.has("missing-pointer") && !codes.has("duplicate-pointer"),
      again.stdout,
    );
  });
});
