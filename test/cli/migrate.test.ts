import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { runCliInProcess } from "../helpers/cli.ts";
import { makeTempDir } from "../helpers/temp.ts";

describe("memdir migrate", () => {
  it("finds the memory a moved project left behind and moves it to the project's new path", async () => {
    const home = makeTempDir();
    const root = path.join(home, ".memroot");
    const oldProject = path.join(home, "old-shop");
    const newProject = path.join(home, "shop");
    fs.mkdirSync(oldProject);
    const run = (args: string[], cwd: string) =>
      runCliInProcess([...args, "--root", root, "--cwd", cwd], { home });

    const saved = await run(["remember", "use pnpm, not npm", "--json"], oldProject);
    assert.equal(saved.code, 0, saved.stderr);
    fs.renameSync(oldProject, newProject);

    const before = await run(["list", "--json"], newProject);
    assert.deepEqual(JSON.parse(before.stdout), [], "the moved project starts with no memory");

    const listed = await run(["migrate", "--json"], newProject);
    assert.equal(listed.code, 0, listed.stderr);
    assert.deepEqual(
      JSON.parse(listed.stdout).orphaned.map((o: { projectRoot: string }) => o.projectRoot),
      [oldProject],
    );

    const moved = await run(["migrate", "--from", oldProject, "--json"], newProject);
    assert.equal(moved.code, 0, moved.stderr);
    assert.equal(JSON.parse(moved.stdout).projectRoot, newProject);

    const after = await run(["list", "--json"], newProject);
    assert.deepEqual(
      JSON.parse(after.stdout).map((m: { description: string }) => m.description),
      ["use pnpm, not npm"],
      "the memory is found from the new path",
    );
    const again = await run(["migrate", "--json"], newProject);
    assert.deepEqual(JSON.parse(again.stdout).orphaned, [], "nothing is left behind");
  });

  it("refuses to move memory over a project that already has some", async () => {
    const home = makeTempDir();
    const root = path.join(home, ".memroot");
    const oldProject = path.join(home, "old");
    const newProject = path.join(home, "new");
    fs.mkdirSync(oldProject);
    fs.mkdirSync(newProject);
    const run = (args: string[], cwd: string) =>
      runCliInProcess([...args, "--root", root, "--cwd", cwd], { home });
    assert.equal((await run(["remember", "old rule: use tabs"], oldProject)).code, 0);
    assert.equal((await run(["remember", "new rule: use spaces"], newProject)).code, 0);
    fs.rmSync(oldProject, { recursive: true });

    const moved = await run(["migrate", "--from", oldProject], newProject);
    assert.equal(moved.code, 1);
    assert.match(moved.stderr, /memdir:/);
    const after = await run(["list", "--json"], newProject);
    assert.deepEqual(
      JSON.parse(after.stdout).map((m: { description: string }) => m.description),
      ["new rule: use spaces"],
      "the new project's memory is untouched",
    );
  });
});
