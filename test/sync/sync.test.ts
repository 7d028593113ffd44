// memdir sync over git (docs/sync.md): two machines (temp HOMEs) with the same project cloned at
// different paths, a local bare repository as the remote, real git and real CLI processes.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { cloneDir } from "../../src/sync/remotes.ts";
import {
  gitIn,
  initBoth,
  makeWorld,
  memory,
  PROJECT_KEY,
  pushAsTeammate,
  syncJson,
} from "../helpers/sync-machines.ts";

describe("memdir sync: two machines, one project", () => {
  it("shares memory between two clones of one repository at different paths, and never with an unrelated project", async () => {
    const world = makeWorld();
    await initBoth(world);
    const saved = await world.a.memdir([
      "add",
      "--type",
      "user",
      "--description",
      "prefers tabs",
      "--title",
      "Tabs, always",
      "tabs, not spaces",
    ]);
    assert.equal(saved.code, 0, saved.stderr);
    const first = await syncJson(world.a);
    assert.deepEqual(
      { pulled: first.pulled, pushed: first.pushed, conflicts: first.conflicts, skipped: first.skipped },
      {
        pulled: 0,
        pushed: 1,
        conflicts: [],
        skipped: [],
      },
    );
    assert.equal(first.remote, world.remoteUrl);
    const second = await syncJson(world.b);
    assert.equal(second.pulled, 1);
    assert.deepEqual(world.b.files(), ["user-prefers-tabs.md"]);
    assert.equal(world.b.read("user-prefers-tabs.md"), world.a.read("user-prefers-tabs.md"));
    // MEMORY.md is rebuilt from the file's own frontmatter: machine a's index line, title included,
    // is not read (test/sync/held.test.ts has why).
    assert.match(
      world.b.read("MEMORY.md") ?? "",
      /^- \[Prefers tabs\]\(user-prefers-tabs\.md\) — prefers tabs$/m,
    );
    for (const m of [world.a, world.b]) {
      const marker = JSON.parse(fs.readFileSync(path.join(m.memoryDir, ".memdir-project"), "utf8"));
      assert.deepEqual(marker, { projectRoot: m.project, projectKey: PROJECT_KEY });
    }
    // An unrelated project on machine b (its own history, no origin) gets nothing.
    const other = path.join(world.b.home, "code", "other");
    fs.mkdirSync(other, { recursive: true });
    gitIn(other, ["init", "-q"]);
    fs.writeFileSync(path.join(other, "x.txt"), "x\n");
    gitIn(other, ["add", "x.txt"]);
    gitIn(other, ["commit", "-q", "-m", "unrelated"]);
    const unrelated = await world.b.memdir(["sync", "--json", "--cwd", other]);
    assert.equal(unrelated.code, 0, unrelated.stderr);
    assert.equal(JSON.parse(unrelated.stdout).pulled, 0);
    const listed = await world.b.memdir(["list", "--json", "--cwd", other]);
    assert.deepEqual(JSON.parse(listed.stdout), []);
  });

  it("refuses Claude Code's shared autoMemoryDirectory with its reason, and pushes nothing", async () => {
    const world = makeWorld();
    await initBoth(world);
    const shared = path.join(world.a.home, "all-memory");
    fs.writeFileSync(
      path.join(world.a.home, ".claude", "settings.json"),
      JSON.stringify({ autoMemoryDirectory: shared }),
    );
    const saved = await world.a.memdir(["add", "--type", "user", "--description", "prefers tabs", "tabs"]);
    assert.equal(saved.code, 0, saved.stderr);
    assert.ok(fs.existsSync(path.join(shared, "user-prefers-tabs.md")));
    const refused = await world.a.memdir(["sync", "--json"]);
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /autoMemoryDirectory, one folder every project shares/);
    // The folder every project shares got no owner marker, and machine b pulls nothing.
    assert.ok(!fs.existsSync(path.join(shared, ".memdir-project")));
    assert.equal((await syncJson(world.b)).pulled, 0);
  });

  it("keeps different files from both sides, and rebuilds MEMORY.md instead of merging its text", async () => {
    const world = makeWorld();
    await initBoth(world);
    await world.a.memdir([
      "add",
      "--type",
      "project",
      "--description",
      "deploys on fridays are banned",
      "no friday deploys",
    ]);
    await world.b.memdir([
      "add",
      "--type",
      "feedback",
      "--description",
      "tests hit a real database",
      "no mocks",
    ]);
    await syncJson(world.a);
    const b = await syncJson(world.b);
    assert.deepEqual([b.pulled, b.pushed, b.conflicts], [1, 1, []]);
    await syncJson(world.a);
    const expected = ["feedback-tests-hit-real-database.md", "project-deploys-fridays-banned.md"];
    for (const m of [world.a, world.b]) {
      assert.deepEqual(m.files(), expected);
      const index = m.read("MEMORY.md") ?? "";
      for (const file of expected)
        assert.equal(index.split(`(${file})`).length, 2, `${file} listed once in\n${index}`);
      assert.doesNotMatch(index, /<<<<<<<|>>>>>>>|=======/);
    }
    const doctor = await world.a.memdir(["doctor", "--json"]);
    assert.deepEqual(JSON.parse(doctor.stdout).issues ?? JSON.parse(doctor.stdout), []);
  });

  it("keeps both versions of a memory changed on both machines: the other side's as a conflict file, reported until resolved", async () => {
    const world = makeWorld();
    await initBoth(world);
    world.a.write("user-editor.md", memory("the editor the user likes", "vim", "user"));
    await syncJson(world.a);
    await syncJson(world.b);
    world.a.write("user-editor.md", memory("the editor the user likes", "neovim, since 2026", "user"));
    world.b.write("user-editor.md", memory("the editor the user likes", "helix", "user"));
    await syncJson(world.a);
    const report = await syncJson(world.b);
    assert.equal(report.conflicts.length, 1);
    const conflict = report.conflicts[0];
    assert.match(conflict, /^user-editor\.conflict-[0-9a-f]{8}\.md$/);
    assert.match(world.b.read("user-editor.md") ?? "", /helix/);
    assert.match(world.b.read(conflict) ?? "", /^---\nconflictOf: "user-editor\.md"\n/);
    assert.match(world.b.read(conflict) ?? "", /neovim, since 2026/);
    const status = await world.b.memdir(["sync", "--status", "--json"]);
    const parsed = JSON.parse(status.stdout);
    assert.deepEqual(Object.keys(parsed).slice(0, 5), ["remote", "ahead", "behind", "conflicts", "lastSync"]);
    assert.deepEqual(parsed.conflicts, [conflict]);
    assert.equal(parsed.ahead, 0);
    assert.equal(parsed.behind, 0);
    assert.ok(!Number.isNaN(Date.parse(parsed.lastSync)));
    const doctor = await world.b.memdir(["doctor", "--json"]);
    assert.match(doctor.stdout, /sync-conflict/);
    // Machine a gets both versions too: nothing is lost anywhere.
    const a = await syncJson(world.a);
    assert.deepEqual(a.conflicts, [conflict]);
    assert.match(world.a.read("user-editor.md") ?? "", /helix/);
    assert.match(world.a.read(conflict) ?? "", /neovim/);
    // Resolved (merged by hand, the conflict file deleted): no longer reported, anywhere.
    world.b.write(
      "user-editor.md",
      memory("the editor the user likes", "helix at work, neovim at home", "user"),
    );
    assert.equal((await world.b.memdir(["rm", conflict])).code, 0);
    assert.deepEqual((await syncJson(world.b)).conflicts, []);
    assert.deepEqual((await syncJson(world.a)).conflicts, []);
    assert.doesNotMatch((await world.a.memdir(["doctor", "--json"])).stdout, /sync-conflict/);
    assert.match(world.a.read("user-editor.md") ?? "", /helix at work, neovim at home/);
  });

  it("propagates a deletion to the other machine, and the deleted memory stays restorable from the remote's history", async () => {
    const world = makeWorld();
    await initBoth(world);
    await world.a.memdir([
      "add",
      "--type",
      "reference",
      "--file",
      "reference-dashboard.md",
      "--description",
      "the grafana board",
      "grafana.internal/d/shop",
    ]);
    await syncJson(world.a);
    await syncJson(world.b);
    assert.deepEqual(world.b.files(), ["reference-dashboard.md"]);
    const before = world.a.read("reference-dashboard.md");
    assert.equal((await world.a.memdir(["rm", "reference-dashboard.md"])).code, 0);
    assert.equal((await syncJson(world.a)).pushed, 1);
    assert.equal((await syncJson(world.b)).pulled, 1);
    assert.deepEqual(world.b.files(), []);
    assert.doesNotMatch(world.b.read("MEMORY.md") ?? "", /reference-dashboard/);
    const log = gitIn(world.remoteDir, [
      "log",
      "--format=%H",
      "--diff-filter=D",
      "main",
      "--",
      `${PROJECT_KEY}/reference-dashboard.md`,
    ]);
    const deletion = log.trim().split("\n")[0];
    assert.equal(
      gitIn(world.remoteDir, ["show", `${deletion}^:${PROJECT_KEY}/reference-dashboard.md`]),
      before,
    );
  });

  it("never pushes a file holding a secret (and names it), a private memory, or memdir's own dot-folders", async () => {
    const world = makeWorld();
    await initBoth(world);
    world.a.write(
      "project-ci.md",
      memory("the CI token", `token: ghp_${"aB3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF3hJ6"}`),
    );
    world.a.write(
      "user-health.md",
      `---\ndescription: a private note\ntype: user\nvisibility: private\n---\nprivate\n`,
    );
    world.a.write("project-ok.md", memory("an ordinary memory", "fine"));
    world.a.write(".memdir-cache/index.md", "cache\n");
    world.a.write(".proposals/p1.md", memory("a proposal", "later"));
    world.a.write(".memdir-extract/queue.md", "queue\n");
    const report = await syncJson(world.a);
    const skipped = Object.fromEntries(report.skipped.map(({ file, reason }) => [file, reason]));
    assert.match(skipped["project-ci.md"], /GitHub personal access token.*line \d+.*not pushed/);
    assert.match(skipped["user-health.md"], /private/);
    assert.deepEqual(world.remoteFiles(), ["project-ok.md"]);
    const all = gitIn(world.remoteDir, ["log", "--all", "--name-only", "--format="]);
    assert.doesNotMatch(all, /project-ci|user-health|memdir-cache|proposals|memdir-extract|memdir-project/);
    await syncJson(world.b);
    assert.deepEqual(world.b.files(), ["project-ok.md"]);
  });

  it("writes nothing from the remote that the writer would refuse: dot-paths, symlinks, non-memory files, secrets", async () => {
    const world = makeWorld();
    await initBoth(world);
    const work = path.join(world.dir, "attacker");
    gitIn(world.dir, ["clone", "-q", world.remoteDir, work]);
    const folder = path.join(work, PROJECT_KEY);
    fs.mkdirSync(path.join(folder, ".git"), { recursive: true });
    fs.writeFileSync(path.join(folder, ".git", "config"), "[core]\n\tfsmonitor = touch /tmp/pwned\n");
    fs.writeFileSync(path.join(folder, ".memdir-project"), '{"projectRoot":"/elsewhere"}\n');
    fs.writeFileSync(path.join(folder, "run.sh"), "#!/bin/sh\n");
    fs.symlinkSync("/etc/passwd", path.join(folder, "evil.md"));
    fs.writeFileSync(
      path.join(folder, "leak.md"),
      memory("a leak", `key ${["AKIA", "Z3MHQ2K7DPLX5WNB"].join("")}`),
    );
    fs.writeFileSync(path.join(folder, "fine.md"), memory("a fine memory", "ok"));
    gitIn(work, ["add", "-A"]);
    gitIn(work, ["commit", "-q", "-m", "planted"]);
    gitIn(work, ["push", "-q", "origin", "HEAD:main"]);
    const report = await syncJson(world.b);
    assert.deepEqual(world.b.files(), ["fine.md"]);
    // The memory dir's .git, when there is one, is memdir's own history (the pull was recorded),
    // never the planted folder.
    const config = path.join(world.b.memoryDir, ".git", "config");
    assert.doesNotMatch(fs.existsSync(config) ? fs.readFileSync(config, "utf8") : "", /pwned/);
    assert.ok(!fs.existsSync(path.join(world.b.memoryDir, "run.sh")));
    const marker = JSON.parse(fs.readFileSync(path.join(world.b.memoryDir, ".memdir-project"), "utf8"));
    assert.equal(marker.projectRoot, world.b.project);
    const skippedFiles = report.skipped.map((s) => s.file).sort();
    for (const file of ["evil.md", "leak.md", "run.sh"])
      assert.ok(skippedFiles.includes(file), `${file} in ${skippedFiles}: ${JSON.stringify(report.skipped)}`);
  });

  it("syncs the project's team/ memory with the team remote only", async () => {
    const world = makeWorld();
    await initBoth(world);
    const teamRemote = path.join(world.dir, "team.git");
    gitIn(world.dir, ["init", "-q", "--bare", teamRemote]);
    for (const m of [world.a, world.b]) {
      const init = await m.memdir(["sync", "init", "--team", `file://${teamRemote}`, "--json"]);
      assert.equal(init.code, 0, init.stderr);
      assert.deepEqual(JSON.parse(init.stdout), {
        remote: `file://${teamRemote}`,
        team: true,
        projectKey: PROJECT_KEY,
      });
    }
    world.a.write("team/project-release.md", memory("how releases are cut", "tag, then publish", "project"));
    world.a.write("user-mine.md", memory("mine only", "mine", "user"));
    const report = await world.a.memdir(["sync", "--json"]);
    assert.equal(JSON.parse(report.stdout).team.pushed, 1);
    assert.deepEqual(world.remoteFiles(), ["user-mine.md"]);
    await syncJson(world.b);
    assert.deepEqual(world.b.files(), ["team/project-release.md", "user-mine.md"]);
    assert.match(world.b.read("team/MEMORY.md") ?? "", /project-release\.md/);
  });

  it("refuses a remote URL that holds a credential, and records nothing", async () => {
    const world = makeWorld();
    const result = await world.a.memdir(["sync", "init", "https://me:hunter2secret@example.com/memory.git"]);
    assert.equal(result.code, 1);
    assert.match(result.stderr, /stores no credentials/);
    assert.ok(!fs.existsSync(path.join(world.a.home, ".claude", "sync", "remotes.json")));
    const none = await world.a.memdir(["sync"]);
    assert.equal(none.code, 1);
    assert.match(none.stderr, /memdir sync init/);
  });

  it("records a pull as one history entry that a plain memdir undo takes back whole", async () => {
    const world = makeWorld();
    await initBoth(world);
    await world.b.memdir(["add", "--type", "user", "--description", "prefers tabs", "tabs"]);
    const indexBefore = world.b.read("MEMORY.md");
    world.a.write("project-ci.md", memory("CI runs on Buildkite", "pipeline shop-main", "project"));
    world.a.write("project-release.md", memory("releases on tuesdays", "tag then publish", "project"));
    await syncJson(world.a);
    assert.equal((await syncJson(world.b)).pulled, 2);
    const undo = await world.b.memdir(["undo", "--json"]);
    assert.equal(undo.code, 0, undo.stderr);
    const undone = JSON.parse(undo.stdout).undone;
    assert.equal(undone.command, "memdir sync");
    assert.deepEqual(world.b.files(), ["user-prefers-tabs.md"]);
    assert.equal(world.b.read("MEMORY.md"), indexBefore);
  });

  it("keeps no second copy of the memories in its clone, carries names git quotes both ways, and clears an older clone's copy", async () => {
    const world = makeWorld();
    await initBoth(world);
    const clone = (home: string) => path.join(cloneDir(path.join(home, ".claude"), world.remoteUrl), "tree");
    const leftInClone = (home: string) => fs.readdirSync(clone(home)).filter((entry) => entry !== ".git");
    // Names a commit must quote (a space, non-ASCII, a folder), and two no memdir writes (a tab, a
    // backslash): those stay on a, named, instead of piling up in the remote for every other
    // machine to refuse.
    const names = [
      "project-café notes.md",
      "project-tab\there.md",
      "project-back\\slash.md",
      "project-日本語.md",
      "notes/deploy plan.md",
    ];
    for (const [i, file] of names.entries())
      world.a.write(file, memory(`quoted name ${i}`, `body of note ${i}`, "project"));
    const taken = names.filter((file) => !/[\t\\]/.test(file));
    const pushed = await syncJson(world.a);
    assert.equal(pushed.pushed, taken.length);
    assert.deepEqual(
      pushed.skipped.map((skip) => skip.file),
      ["project-back\\slash.md", "project-tab\there.md"],
    );
    for (const skip of pushed.skipped) assert.match(skip.reason, /not pushed/);
    for (const file of taken) assert.equal(world.remoteText(file), world.a.read(file), file);
    for (const file of names.filter((name) => !taken.includes(name)))
      assert.equal(world.remoteText(file), null);
    assert.deepEqual(leftInClone(world.a.home), [], "the push wrote no file beside the clone's .git");
    const pulledFirst = await syncJson(world.b);
    assert.equal(pulledFirst.pulled, taken.length);
    assert.deepEqual(pulledFirst.skipped, []);
    assert.deepEqual(world.b.files(), [...taken].sort());
    assert.deepEqual(leftInClone(world.b.home), [], "the pull wrote each memory once, into the memory dir");
    // A change and a removal on b reach a; files neither side touched stay as they were in the remote.
    world.b.write(names[0], memory("quoted name 0", "body changed on b", "project"));
    fs.rmSync(path.join(world.b.memoryDir, names[3]));
    assert.equal((await syncJson(world.b)).pushed, 2);
    assert.equal((await syncJson(world.a)).pulled, 2);
    assert.match(world.a.read(names[0]) ?? "", /body changed on b/);
    assert.equal(world.a.read(names[3]), null);
    assert.equal(world.remoteText(names[4]), world.a.read(names[4]));
    // A clone an earlier memdir left with a checked-out tree and its clean mark: both go.
    fs.mkdirSync(path.join(clone(world.a.home), PROJECT_KEY), { recursive: true });
    fs.writeFileSync(path.join(clone(world.a.home), PROJECT_KEY, "stale.md"), "left by an older memdir\n");
    const mark = path.join(path.dirname(clone(world.a.home)), "tree-clean-at");
    fs.writeFileSync(mark, "0".repeat(40));
    await syncJson(world.a);
    assert.deepEqual(leftInClone(world.a.home), []);
    assert.ok(!fs.existsSync(mark));
    assert.equal(world.remoteText("stale.md"), null, "nothing from the old tree went out");
  });

  it("keeps the mode of a teammate's executable memory when it is edited here", async () => {
    const world = makeWorld();
    await initBoth(world);
    pushAsTeammate(world, (folder) => {
      fs.writeFileSync(path.join(folder, "project-run.md"), memory("how to run it", "run it", "project"));
      fs.chmodSync(path.join(folder, "project-run.md"), 0o755);
    });
    assert.equal((await syncJson(world.a)).pulled, 1);
    world.a.write("project-run.md", memory("how to run it", "run it twice", "project"));
    world.a.write("project-new.md", memory("a new one", "a plain file", "project"));
    assert.equal((await syncJson(world.a)).pushed, 2);
    assert.match(world.remoteText("project-run.md") ?? "", /run it twice/);
    const modes = gitIn(world.remoteDir, ["ls-tree", "main", `${PROJECT_KEY}/`]);
    assert.match(modes, /^100755 blob \w+\t\S+\/project-run\.md$/m, modes);
    assert.match(modes, /^100644 blob \w+\t\S+\/project-new\.md$/m, modes);
  });

  it("pushes no file over a folder of the remote, nor a folder over one of its files: both stay, named", async () => {
    const world = makeWorld();
    await initBoth(world);
    const inner = memory("a teammate's note", "kept in a folder named like a file", "project");
    pushAsTeammate(world, (folder) => {
      fs.mkdirSync(path.join(folder, "project-a.md"));
      fs.writeFileSync(path.join(folder, "project-a.md", "inner.md"), inner);
      fs.writeFileSync(path.join(folder, "notes"), "a teammate's plain file\n");
    });
    world.a.write("project-a.md", memory("a file here", "where the remote has a folder", "project"));
    world.a.write("notes/deploy.md", memory("a folder here", "where the remote has a file", "project"));
    world.a.write("project-b.md", memory("an ordinary note", "goes out", "project"));
    const report = await syncJson(world.a);
    const reasons = Object.fromEntries(report.skipped.map((skip) => [skip.file, skip.reason]));
    assert.match(reasons["project-a.md"] ?? "", /the remote has a folder of this name; not pushed/);
    assert.match(reasons["notes/deploy.md"] ?? "", /the remote has a file named notes/);
    assert.equal(report.pushed, 1, JSON.stringify(report));
    assert.equal(world.remoteText("project-a.md/inner.md"), inner, "the remote's folder and its file stay");
    assert.equal(world.remoteText("notes"), "a teammate's plain file\n");
    assert.equal(world.remoteText("project-b.md"), world.a.read("project-b.md"));
    assert.match(world.a.read("project-a.md") ?? "", /a file here/, "the local file stays too");
  });
});
