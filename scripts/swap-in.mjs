// Moves a freshly built tree over the live one so that the live tree is whole at every moment: a
// `memdir` linked to this checkout keeps working while `npm test` or `npm run build` rebuilds it
// (test/scripts/swap-in.test.ts). Node has no atomic exchange of two folders, so the tree is
// swapped file by file, each step one rename():
//   1. files only the new build has come first, so the new modules' imports exist before any of
//      them is reachable;
//   2. then each changed file is renamed over its old version (a reader sees the old or the new
//      file, never a part of one); files with the same bytes are left alone;
//   3. last, the files only the old build had go, then folders left empty.
// A process that started on the old build may load a module of the new one between steps 2 and 3,
// as it would after any upgrade; what it can never meet is a missing or half-written module.
import fs from "node:fs";
import path from "node:path";

/** Every file under `dir`, as paths relative to it with `/`; an absent folder has none. */
function filesUnder(dir) {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) =>
      path
        .relative(dir, path.join(entry.parentPath ?? entry.path, entry.name))
        .split(path.sep)
        .join("/"),
    )
    .sort();
}

function sameBytes(a, b) {
  const left = fs.readFileSync(a);
  const right = fs.readFileSync(b);
  return left.equals(right);
}

/**
 * Swaps the tree at `next` in as `live` (see above), then removes `next`. `onStep`, when given,
 * is called after every rename or removal with a word for the step and the file, so a test can
 * check the live tree between steps.
 */
export function swapIn(next, live, onStep = () => {}) {
  const incoming = filesUnder(next);
  const incomingSet = new Set(incoming);
  const current = new Set(filesUnder(live));
  const move = (file) => {
    const target = path.join(live, file);
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.renameSync(path.join(next, file), target);
  };
  for (const file of incoming.filter((file) => !current.has(file))) {
    move(file);
    onStep("add", file);
  }
  for (const file of incoming.filter((file) => current.has(file))) {
    if (sameBytes(path.join(next, file), path.join(live, file))) continue;
    move(file);
    onStep("replace", file);
  }
  for (const file of [...current].filter((file) => !incomingSet.has(file))) {
    fs.rmSync(path.join(live, file));
    onStep("remove", file);
  }
  removeEmptyFolders(live);
  fs.rmSync(next, { recursive: true, force: true });
}

/** Removes the folders under `dir` (not `dir` itself) that hold no file, deepest first. */
function removeEmptyFolders(dir) {
  if (!fs.existsSync(dir)) return;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    const folder = path.join(dir, entry.name);
    removeEmptyFolders(folder);
    if (fs.readdirSync(folder).length === 0) fs.rmdirSync(folder);
  }
}
