// Sync's faults (docs/sync.md), with real git, real signals and a local bare remote: an
// unreachable remote, a rejected push, a killed sync, two syncs at once, a rewritten remote; and
// the background syncs of `sync.auto`, which never fail a hook.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { listHistory, recordPull } from "../../src/dream/history.ts";
import { takeLease } from "../../src/memdir/fs/lease.ts";
import { cloneDir } from "../../src/sync/remotes.ts";
import { type SyncTarget, syncFolder } from "../../src/sync/run.ts";
import { cliNodeArgs } from "../helpers/node-entry.ts";
import {
  gitIn,
  initBoth,
  type Machine,
  makeWorld,
  memory,
  otherProject,
  PROJECT_KEY,
  syncJson,
  type World,
} from "../helpers/sync-machines.ts";
import { waitFor } from "../helpers/wait.ts";

function snapshot(m: Machine): Record<string, string> {
  return Object.fromEntries(m.files().map((file) => [file, m.read(file) ?? ""]));
}

/** Force-pushes an unrelated history whose project folder holds `files`, as a rewrite would. */
function forcePush(world: World, files: Record<string, string>): void {
  const rogue = path.join(world.dir, `rogue-${Math.random().toString(36).slice(2)}`);
  fs.mkdirSync(path.join(rogue, PROJECT_KEY), { recursive: true });
  gitIn(rogue, ["init", "-q"]);
  for (const [file, text] of Object.entries(files))
    fs.writeFileSync(path.join(rogue, PROJECT_KEY, file), text);
  gitIn(rogue, ["add", "-A"]);
  gitIn(rogue, ["commit", "-q", "--allow-empty", "-m", "rewrite"]);
  gitIn(rogue, ["push", "-q", "--force", world.remoteDir, "HEAD:refs/heads/main"]);
}

function startSync(m: Machine): { child: ReturnType<typeof spawn>; done: Promise<number | null> } {
  const child = spawn(process.execPath, [...cliNodeArgs(), "sync", "--json"], {
    cwd: m.project,
    env: { PATH: process.env.PATH ?? "", HOME: m.home, NO_COLOR: "1" },
    stdio: "ignore",
  });
  const done = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
  return { child, done };
}

describe("memdir sync: faults", () => {
  it("an unreachable remote gives one clear line, loses nothing, and the next sync catches up", async () => {
    const world = makeWorld();
    await initBoth(world);
    world.a.write("project-one.md", memory("the first memory", "one"));
    await syncJson(world.a);
    world.a.write("project-two.md", memory("written while offline", "two"));
    const aside = `${world.remoteDir}.moved`;
    fs.renameSync(world.remoteDir, aside);
    const before = snapshot(world.a);
    const failed = await world.a.memdir(["sync"]);
    assert.equal(failed.code, 1);
    assert.equal(failed.stderr.trim().split("\n").length, 1, failed.stderr);
    assert.match(failed.stderr, /^memdir: sync: cannot reach file:\/\/.*nothing changed locally/);
    assert.deepEqual(snapshot(world.a), before);
    const status = await world.a.memdir(["sync", "--status", "--json"]);
    assert.equal(status.code, 0, status.stderr);
    assert.equal(JSON.parse(status.stdout).reachable, false);
    assert.equal(JSON.parse(status.stdout).ahead, 1);
    fs.renameSync(aside, world.remoteDir);
    assert.equal((await syncJson(world.a)).pushed, 1);
    await syncJson(world.b);
    assert.deepEqual(world.b.files(), ["project-one.md", "project-two.md"]);
  });

  it("a push rejected because another machine pushed first fetches, merges and pushes again", async () => {
    const world = makeWorld();
    await initBoth(world);
    world.a.write("project-a.md", memory("from machine a", "a"));
    world.b.write("project-b.md", memory("from machine b", "b"));
    let pushes = 0;
    const report = await syncFolder(
      {
        root: path.join(world.a.home, ".claude"),
        url: world.remoteUrl,
        key: PROJECT_KEY,
        localDir: world.a.memoryDir,
        excludeTeam: true,
      },
      {
        beforePush: async () => {
          if (pushes++ > 0) return;
          // Between machine a's fetch and its push, machine b pushes: a's push is then rejected.
          await syncJson(world.b);
        },
      },
    );
    assert.equal(pushes, 2, "a second push after the rejected one");
    assert.equal(report.pulled, 1);
    assert.equal(report.pushed, 1);
    assert.deepEqual(world.a.files(), ["project-a.md", "project-b.md"]);
    await syncJson(world.b);
    assert.deepEqual(world.b.files(), ["project-a.md", "project-b.md"]);
  });

  it("a memory saved here after the sync read this side is never overwritten by the remote's version: held, then a conflict", async () => {
    const world = makeWorld();
    await initBoth(world);
    const b: SyncTarget = {
      root: path.join(world.b.home, ".claude"),
      url: world.remoteUrl,
      key: PROJECT_KEY,
      localDir: world.b.memoryDir,
      excludeTeam: true,
    };
    // b's syncs run with a clock a minute ahead: every file it reads is settled, so its stat
    // cache vouches for them and the check before each pulled write goes by their stat first.
    const later = () => Date.now() + 60_000;
    for (const file of ["note.md", "gone.md", "other.md"]) world.a.write(file, memory(`the ${file}`, "v1"));
    await syncJson(world.a);
    await syncFolder(b, { now: later, recordPull });
    await syncFolder(b, { now: later, recordPull });
    // a changes note.md and other.md, deletes gone.md and adds fresh.md.
    world.a.write("note.md", memory("the note.md", "a's v2 of note"));
    world.a.write("other.md", memory("the other.md", "a's v2 of other"));
    world.a.write("fresh.md", memory("the fresh.md", "a's fresh"));
    fs.rmSync(path.join(world.a.memoryDir, "gone.md"));
    await syncJson(world.a);
    // b's sync has read b's files and decided "a changed these, b did not": then b saves three
    // memories through memdir's writer, before the sync writes what it pulled.
    const saves: [string, string][] = [
      ["note.md", "b's edit of note"],
      ["gone.md", "b's edit of gone"],
      ["fresh.md", "b's fresh"],
    ];
    const report = await syncFolder(b, {
      now: later,
      recordPull,
      beforePull: async () => {
        for (const [file, body] of saves) {
          const saved = await world.b.memdir([
            "add",
            "--type",
            "feedback",
            "--file",
            file,
            "--description",
            `the ${file}`,
            body,
          ]);
          assert.equal(saved.code, 0, saved.stderr);
        }
      },
    });
    for (const [file, body] of saves) assert.match(world.b.read(file) ?? "", new RegExp(`${body}\n`), file);
    assert.match(world.b.read("other.md") ?? "", /a's v2 of other/);
    assert.equal(report.pulled, 1, "other.md only");
    assert.deepEqual(report.conflicts, []);
    const held = report.skipped.filter((entry) => /changed here while this sync ran/.test(entry.reason));
    assert.deepEqual(held.map((entry) => entry.file).sort(), ["fresh.md", "gone.md", "note.md"]);
    // The pull's history entry is what it wrote, and b's saves stay b's own entries.
    const [pull, ...earlier] = await listHistory(world.b.memoryDir);
    assert.equal(pull.kind, "sync");
    assert.match(pull.message, /^pulled 1 file\(s\)/);
    assert.deepEqual(
      pull.changes.map((change) => change.file),
      ["other.md"],
    );
    assert.deepEqual(
      earlier
        .slice(0, saves.length)
        .flatMap((entry) => entry.changes.map((change) => change.file))
        .filter((file) => file !== "MEMORY.md")
        .sort(),
      saves.map(([file]) => file).sort(),
    );
    // The remote's versions wait there for the next sync.
    assert.match(world.remoteText("note.md") ?? "", /a's v2 of note/);
    assert.match(world.remoteText("fresh.md") ?? "", /a's fresh/);
    assert.equal(world.remoteText("gone.md"), null);
    // The next syncs: b's texts stay in the memories, a's come in beside them (or lose to b's
    // change, for the deletion), and both machines end with every text.
    const next = await syncJson(world.b);
    assert.equal(next.conflicts.length, 2, JSON.stringify(next));
    assert.deepEqual(next.conflicts.map((file) => file.replace(/\.conflict-[0-9a-f]{8}\.md$/, "")).sort(), [
      "fresh",
      "note",
    ]);
    for (const [file, body] of saves) assert.match(world.b.read(file) ?? "", new RegExp(`${body}\n`), file);
    await syncJson(world.a);
    assert.deepEqual(world.a.files(), world.b.files());
    for (const m of [world.a, world.b]) {
      const texts = m
        .files()
        .map((file) => m.read(file) ?? "")
        .join("\n");
      for (const body of ["a's v2 of note", "a's v2 of other", "a's fresh", ...saves.map(([, body]) => body)])
        assert.ok(texts.includes(body), `${body} on ${m === world.a ? "a" : "b"}`);
    }
  });

  it("a sync killed with SIGKILL at any point is finished cleanly by the next one", async () => {
    const world = makeWorld();
    await initBoth(world);
    for (let i = 0; i < 150; i++) world.b.write(`project-b-${i}.md`, memory(`memory ${i} from b`, `b ${i}`));
    await syncJson(world.b);
    for (let i = 0; i < 150; i++) world.a.write(`project-a-${i}.md`, memory(`memory ${i} from a`, `a ${i}`));
    const before = snapshot(world.a);
    for (const delay of [150, 400, 700, 1000, 1500]) {
      const run = startSync(world.a);
      await sleep(delay);
      run.child.kill("SIGKILL");
      await run.done;
    }
    const report = await syncJson(world.a);
    assert.deepEqual(report.conflicts, []);
    const after = snapshot(world.a);
    for (const [file, text] of Object.entries(before)) assert.equal(after[file], text, `${file} kept`);
    assert.equal(world.a.files().length, 300);
    await syncJson(world.b);
    assert.deepEqual(world.b.files(), world.a.files());
    assert.equal((await syncJson(world.a)).pushed, 0);
  });

  it("two syncs at once on one machine: the second waits for the first", async () => {
    const world = makeWorld();
    await initBoth(world);
    world.a.write("project-x.md", memory("waits its turn", "x"));
    const lockPath = path.join(cloneDir(path.join(world.a.home, ".claude"), world.remoteUrl), "lock");
    const held = await takeLease(lockPath, { staleMs: 120_000, timeoutMs: 5_000 });
    const run = startSync(world.a);
    let finished = false;
    void run.done.then(() => {
      finished = true;
    });
    await sleep(2_000);
    assert.equal(finished, false, "the sync waits while another holds the remote");
    assert.equal(await held.holds(), true, "the waiting sync never takes a live holder's lease");
    assert.equal(world.remoteText("project-x.md"), null);
    assert.match(world.a.read("project-x.md") ?? "", /waits its turn/, "the memory is kept meanwhile");
    await held.release();
    assert.equal(await run.done, 0);
    assert.match(world.remoteText("project-x.md") ?? "", /waits its turn/);
    // What the user sees next: nothing left to push, and the other machine gets the memory.
    assert.equal((await syncJson(world.a)).pushed, 0);
    await syncJson(world.b);
    assert.match(world.b.read("project-x.md") ?? "", /waits its turn/);
  });

  it("concurrent syncs from both machines (and twice on one) converge without losing a memory", async () => {
    const world = makeWorld();
    await initBoth(world);
    for (let round = 0; round < 3; round++) {
      world.a.write(`project-a-${round}.md`, memory(`a in round ${round}`, `a${round}`));
      world.b.write(`project-b-${round}.md`, memory(`b in round ${round}`, `b${round}`));
      const codes = await Promise.all([
        startSync(world.a).done,
        startSync(world.a).done,
        startSync(world.b).done,
      ]);
      assert.deepEqual(codes, [0, 0, 0]);
    }
    await syncJson(world.a);
    await syncJson(world.b);
    await syncJson(world.a);
    const expected = [0, 1, 2].flatMap((r) => [`project-a-${r}.md`, `project-b-${r}.md`]).sort();
    assert.deepEqual(world.a.files(), expected);
    assert.deepEqual(world.b.files(), expected);
  });

  it("refuses to sync with a remote that was rewritten, deletes nothing, and merges after --accept-remote", async () => {
    const world = makeWorld();
    await initBoth(world);
    world.a.write("project-keep.md", memory("must survive a rewrite", "keep"));
    await syncJson(world.a);
    // Someone force-pushes an unrelated history.
    const rogue = path.join(world.dir, "rogue");
    fs.mkdirSync(path.join(rogue, PROJECT_KEY), { recursive: true });
    gitIn(rogue, ["init", "-q"]);
    fs.writeFileSync(path.join(rogue, PROJECT_KEY, "project-other.md"), memory("from the rewrite", "other"));
    gitIn(rogue, ["add", "-A"]);
    gitIn(rogue, ["commit", "-q", "-m", "rewrite"]);
    gitIn(rogue, ["push", "-q", "--force", world.remoteDir, "HEAD:refs/heads/main"]);
    const before = snapshot(world.a);
    const refused = await world.a.memdir(["sync"]);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /was rewritten or reset.*no local memory was deleted.*--accept-remote/);
    assert.deepEqual(snapshot(world.a), before);
    const accepted = await syncJson(world.a, ["--accept-remote"]);
    assert.equal(accepted.pulled, 1);
    assert.deepEqual(world.a.files(), ["project-keep.md", "project-other.md"]);
    assert.match(world.remoteText("project-keep.md") ?? "", /must survive/);
  });

  it("sync --status says the remote was rewritten, and counts what --accept-remote would do, not deletions", async () => {
    const world = makeWorld();
    await initBoth(world);
    world.a.write("project-x.md", memory("x as synced", "x"));
    world.a.write("project-y.md", memory("y as synced", "y"));
    await syncJson(world.a);
    const calm = JSON.parse((await world.a.memdir(["sync", "--status", "--json"])).stdout);
    assert.equal(calm.rewritten, false);
    // A force-push of a history that keeps x and drops y.
    forcePush(world, { "project-x.md": memory("x as synced", "x") });
    const before = snapshot(world.a);
    const status = await world.a.memdir(["sync", "--status", "--json"]);
    assert.equal(status.code, 0, status.stderr);
    const report = JSON.parse(status.stdout);
    assert.equal(report.rewritten, true);
    assert.equal(report.reachable, true);
    // y is no deletion to pull (a plain sync refuses; --accept-remote keeps it and pushes it).
    assert.deepEqual({ ahead: report.ahead, behind: report.behind }, { ahead: 1, behind: 0 });
    const text = await world.a.memdir(["sync", "--status"]);
    assert.match(text.stdout, /^rewritten: the remote was rewritten or reset .*--accept-remote/m);
    assert.deepEqual(snapshot(world.a), before);
    assert.equal((await world.a.memdir(["sync"])).code, 1);
    await syncJson(world.a, ["--accept-remote"]);
    assert.equal(JSON.parse((await world.a.memdir(["sync", "--status", "--json"])).stdout).rewritten, false);
  });

  it("two projects on one clone: --accept-remote in one leaves the other refused until its own, deleting nothing", async () => {
    const world = makeWorld();
    await initBoth(world);
    const shop = world.a;
    const other = otherProject(world.a, "other");
    shop.write("project-shop.md", memory("the shop's memory", "shop"));
    await syncJson(shop);
    other.write("project-other.md", memory("the other project's only copy", "other"));
    await syncJson(other);
    forcePush(world, { "project-rogue.md": memory("from the rewrite", "rogue") });
    assert.match((await shop.memdir(["sync"])).stderr, /was rewritten or reset/);
    await syncJson(shop, ["--accept-remote"]);
    // The shared state.json now holds the rewritten remote as the clone's last commit: the other
    // project is refused all the same, by the commit it last synced.
    const refused = await other.memdir(["sync", "--json"]);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /was rewritten or reset.*no local memory was deleted.*--accept-remote/);
    assert.deepEqual(other.files(), ["project-other.md"]);
    assert.equal(JSON.parse((await other.memdir(["sync", "--status", "--json"])).stdout).rewritten, true);
    const accepted = await syncJson(other, ["--accept-remote"]);
    assert.equal(accepted.pushed, 1);
    assert.deepEqual(other.files(), ["project-other.md"]);
    assert.equal(
      gitIn(world.remoteDir, ["show", "main:github.com/acme/other/project-other.md"]),
      other.read("project-other.md"),
    );
  });

  it("a reset refuses only the projects whose last synced commit it dropped", async () => {
    const world = makeWorld();
    await initBoth(world);
    const shop = world.a;
    const other = otherProject(world.a, "other");
    shop.write("project-shop.md", memory("the shop's memory", "shop"));
    await syncJson(shop);
    const shopCommit = gitIn(world.remoteDir, ["rev-parse", "main"]).trim();
    other.write("project-other.md", memory("the other project's only copy", "other"));
    await syncJson(other);
    // Reset to the shop's own commit, from before the other project's push.
    gitIn(world.remoteDir, ["update-ref", "refs/heads/main", shopCommit]);
    // The shop's folder is as it last synced it: nothing to misread, so it syncs.
    const shopSynced = await syncJson(shop);
    assert.deepEqual({ pulled: shopSynced.pulled, pushed: shopSynced.pushed }, { pulled: 0, pushed: 0 });
    // The other project's memory is missing from the remote: refused, not pulled as a deletion.
    const refused = await other.memdir(["sync", "--json"]);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /was rewritten or reset/);
    assert.deepEqual(other.files(), ["project-other.md"]);
  });

  it("sync.auto: a save syncs in the background, session start pulls in the background, and a hook always exits 0", async () => {
    const world = makeWorld();
    await initBoth(world);
    for (const m of [world.a, world.b])
      fs.writeFileSync(
        path.join(m.home, ".claude", "settings.json"),
        JSON.stringify({ sync: { auto: true } }),
      );
    // As processes: what is tested is the sync each one starts in the background.
    const saved = await world.a.memdir(
      ["add", "--type", "user", "--description", "likes short answers", "short"],
      { process: true },
    );
    assert.equal(saved.code, 0, saved.stderr);
    await waitFor(() => world.remoteText("user-likes-short-answers.md") !== null, {
      what: "the background push",
    });
    const hookInput = JSON.stringify({
      session_id: "s1",
      cwd: world.b.project,
      hook_event_name: "SessionStart",
    });
    const hook = await world.b.memdir(["hook", "session-start"], { input: hookInput, process: true });
    assert.equal(hook.code, 0, hook.stderr);
    assert.match(hook.stderr, /sync pull started in the background/);
    await waitFor(() => world.b.files().includes("user-likes-short-answers.md"), {
      what: "the background pull",
    });
    // With the remote gone, the hook still answers and exits 0.
    fs.renameSync(world.remoteDir, `${world.remoteDir}.gone`);
    const offline = await world.b.memdir(["hook", "session-start"], { input: hookInput, process: true });
    assert.equal(offline.code, 0);
    assert.ok(JSON.parse(offline.stdout));
    const auto = await world.b.memdir(["sync", "--auto"]);
    assert.equal(auto.code, 0);
    assert.match(auto.stderr, /cannot reach/);
  });
});

describe("memdir sync: the clone is memdir's own", () => {
  it("runs nothing a planted clone config or hook names, and keeps no remote or credential in it", async () => {
    const world = makeWorld();
    await initBoth(world);
    world.a.write("project-one.md", memory("one", "1"));
    await syncJson(world.a);
    const tree = path.join(cloneDir(path.join(world.a.home, ".claude"), world.remoteUrl), "tree");
    const marker = path.join(world.dir, "planted-ran");
    fs.writeFileSync(
      path.join(tree, ".git", "config"),
      `[core]\n\tfsmonitor = "touch ${marker}"\n\tpager = touch ${marker}\n[alias]\n\tfetch = !touch ${marker}\n`,
    );
    for (const hook of ["pre-commit", "post-commit", "pre-push", "reference-transaction"])
      fs.writeFileSync(path.join(tree, ".git", "hooks", hook), `#!/bin/sh\ntouch ${marker}\n`, {
        mode: 0o755,
      });
    world.a.write("project-two.md", memory("two", "2"));
    assert.equal((await syncJson(world.a)).pushed, 1);
    assert.ok(!fs.existsSync(marker), "a planted config or hook ran");
    const config = fs.readFileSync(path.join(tree, ".git", "config"), "utf8");
    assert.doesNotMatch(config, /remote|url|fsmonitor = "|credential/);
  });
});
