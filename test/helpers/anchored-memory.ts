import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import path from "node:path";
import { runCliInProcess } from "./cli.ts";
import { makeTempDir, writeTree } from "./temp.ts";

/**
 * A git project `<home>/shop` with `src/auth/login.ts`, and a memory `memdir add` saved there that
 * names that file, so the writer stamped it with an anchor (docs/design.md#stale-anchors). Remove
 * the file to make the anchor vanish.
 */
export async function addAnchoredMemory(): Promise<{ home: string; project: string; file: string }> {
  const home = makeTempDir();
  const project = path.join(home, "shop");
  writeTree(project, { "src/auth/login.ts": "export function refreshToken() {}\n" });
  execFileSync("git", ["init", "-q"], { cwd: project });
  const added = await runCliInProcess(
    [
      "add",
      "--type",
      "project",
      "--description",
      "token refresh lives in the login module",
      "See src/auth/login.ts.",
    ],
    { home, cwd: project },
  );
  assert.equal(added.code, 0, added.stderr);
  return { home, project, file: added.stdout.trim() };
}
