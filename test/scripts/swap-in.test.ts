// The build swaps a fresh dist/ in (scripts/swap-in.mjs) so a `memdir` linked to the checkout keeps
// working while the suite rebuilds: checked here between every single step of a swap.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
// @ts-expect-error: a plain .mjs script without types
import { swapIn } from "../../scripts/swap-in.mjs";
import { makeTempDir } from "../helpers/temp.ts";

function writeTree(root: string, files: Record<string, string>): void {
  for (const [file, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    fs.writeFileSync(path.join(root, file), text);
  }
}

function readTree(root: string): Record<string, string> {
  const tree: Record<string, string> = {};
  for (const entry of fs.readdirSync(root, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const full = path.join(entry.parentPath, entry.name);
    tree[path.relative(root, full).split(path.sep).join("/")] = fs.readFileSync(full, "utf8");
  }
  return tree;
}

/** The relative modules a file imports (`import "./x.js"`), as paths from the tree's root. */
function importsOf(file: string, text: string): string[] {
  return [...text.matchAll(/import "(\.[^"]+)"/g)].map((match) =>
    path.posix.normalize(path.posix.join(path.posix.dirname(file), match[1] as string)),
  );
}

describe("the build's swap of dist/", () => {
  const oldTree = {
    "cli/main.js": 'import "../lib/a.js";\nold main\n',
    "lib/a.js": 'import "./same.js";\nold a\n',
    "lib/same.js": "unchanged\n",
    "lib/gone.js": "only in the old build\n",
    "old-only/x.js": "a folder only the old build has\n",
  };
  const newTree = {
    "cli/main.js": 'import "../lib/a.js";\nimport "../lib/fresh.js";\nnew main\n',
    "lib/a.js": 'import "./same.js";\nimport "../new-folder/y.js";\nnew a\n',
    "lib/same.js": "unchanged\n",
    "lib/fresh.js": "only in the new build\n",
    "new-folder/y.js": "a folder only the new build has\n",
  };

  it("never leaves a file half-written or an import of either build missing, and ends as the new build", () => {
    const root = makeTempDir("swap-in");
    const live = path.join(root, "dist");
    const next = path.join(root, ".dist-next");
    writeTree(live, oldTree);
    writeTree(next, newTree);
    const sameInode = fs.statSync(path.join(live, "lib/same.js")).ino;
    const steps: string[] = [];
    swapIn(next, live, (step: string, file: string) => {
      steps.push(`${step} ${file}`);
      const tree = readTree(live);
      for (const [file, text] of Object.entries(tree)) {
        const versions = [oldTree[file as keyof typeof oldTree], newTree[file as keyof typeof newTree]];
        assert.ok(versions.includes(text), `after "${step} ${file}", ${file} is neither build's version`);
        for (const imported of importsOf(file, text))
          assert.ok(imported in tree, `after "${step} ${file}", ${file} imports the missing ${imported}`);
      }
    });
    assert.deepEqual(readTree(live), newTree);
    assert.equal(fs.existsSync(next), false, "the fresh tree is consumed");
    assert.equal(fs.existsSync(path.join(live, "old-only")), false, "a folder left empty goes");
    assert.equal(
      fs.statSync(path.join(live, "lib/same.js")).ino,
      sameInode,
      "an unchanged file is left alone",
    );
    assert.ok(steps.length >= 6, `every change is a step: ${steps.join(", ")}`);
  });

  it("builds a first dist/ where there was none", () => {
    const root = makeTempDir("swap-in");
    writeTree(path.join(root, "next"), newTree);
    swapIn(path.join(root, "next"), path.join(root, "dist"));
    assert.deepEqual(readTree(path.join(root, "dist")), newTree);
  });
});
