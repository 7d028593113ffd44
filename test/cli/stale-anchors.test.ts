// Stale anchors (docs/design.md#stale-anchors) on a real git repository: a memory names a file and a function, the
// file is renamed and another memory's function deleted; doctor --stale says what changed, recall
// notes what vanished.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { parseFrontmatter } from "../../src/memdir/format/frontmatter.ts";
import { findStaleMemories } from "../../src/memdir/health/stale.ts";
import { anchorsOf } from "../../src/memdir/trust/anchors.ts";
import { runCliInProcess } from "../helpers/cli.ts";
import { makeTempDir, writeTree } from "../helpers/temp.ts";

function git(cwd: string, ...args: string[]): void {
  execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@t", ...args], { cwd, stdio: "ignore" });
}

async function repository() {
  const home = makeTempDir();
  const project = path.join(home, "shop");
  writeTree(project, {
    "src/auth/login.ts": "export function refreshToken() {\n  return renew();\n}\n",
    "src/auth/session.ts": "export function keepAlive() {}\n\nexport function expire() {}\n",
    "package.json": JSON.stringify({ scripts: { build: "tsc -p ." } }, null, 2),
  });
  git(project, "init", "-q");
  git(project, "add", "-A");
  git(project, "commit", "-q", "-m", "start");
  const add = (description: string, body: string) =>
    runCliInProcess(["add", "--type", "project", "--description", description, body], { home, cwd: project });
  const login = await add(
    "token refresh lives in the login module",
    "`refreshToken` in src/auth/login.ts renews tokens.",
  );
  const session = await add(
    "sessions are kept alive by the session module",
    "`keepAlive()` in src/auth/session.ts pings; build with `npm run build`.",
  );
  assert.equal(login.code, 0, login.stderr);
  assert.equal(session.code, 0, session.stderr);
  return { home, project, loginPath: login.stdout.trim(), sessionPath: session.stdout.trim() };
}

describe("stale anchors", () => {
  it("are recorded by the writer: the named files with a hash, the symbols and commands with their defining line's", async () => {
    const { loginPath, sessionPath } = await repository();
    const anchors = anchorsOf(parseFrontmatter(fs.readFileSync(loginPath, "utf8")).data);
    assert.deepEqual(
      anchors.map((a) => [a.path, a.symbol ?? null]),
      [
        ["src/auth/login.ts", null],
        ["src/auth/login.ts", "refreshToken"],
      ],
    );
    assert.ok(anchors.every((a) => /^[0-9a-f]{12}$/.test(a.hash ?? "")));
    const session = anchorsOf(parseFrontmatter(fs.readFileSync(sessionPath, "utf8")).data);
    assert.ok(
      session.some((a) => a.path === "package.json" && a.symbol === "build"),
      JSON.stringify(session),
    );
  });

  it("after a rename and a deleted function, doctor --stale lists both memories with what changed", async () => {
    const { home, project } = await repository();
    const clean = await runCliInProcess(["doctor", "--stale"], { home, cwd: project });
    assert.equal(clean.code, 0, clean.stdout);
    assert.match(clean.stdout, /no stale memories/);

    git(project, "mv", "src/auth/login.ts", "src/auth/signin.ts");
    fs.writeFileSync(path.join(project, "src/auth/session.ts"), "export function expire() {}\n");
    git(project, "commit", "-qam", "rename login, drop keepAlive");

    const result = await runCliInProcess(["doctor", "--stale", "--json"], { home, cwd: project });
    assert.equal(result.code, 1, "stale memories make doctor exit 1");
    const { stale } = JSON.parse(result.stdout) as {
      stale: { file: string; changes: { change: string; message: string }[] }[];
    };
    const byFile = new Map(
      stale.map((memory) => [memory.file, memory.changes.map((c) => `${c.change}: ${c.message}`)]),
    );
    assert.equal(stale.length, 2);
    const login = [...byFile.entries()].find(([file]) => file.includes("token-refresh"))?.[1] ?? [];
    assert.ok(login.includes("vanished: src/auth/login.ts no longer exists"), login.join("\n"));
    const session = [...byFile.entries()].find(([file]) => file.includes("sessions"))?.[1] ?? [];
    assert.ok(
      session.includes("vanished: `keepAlive` is no longer defined in src/auth/session.ts"),
      session.join("\n"),
    );
    assert.ok(
      session.includes("changed: src/auth/session.ts changed since the memory was saved"),
      session.join("\n"),
    );
    assert.ok(
      !session.some((line) => line.includes("package.json")),
      "the untouched build script is not stale",
    );

    const human = await runCliInProcess(["doctor", "--stale"], { home, cwd: project });
    assert.match(human.stdout, /vanished: src\/auth\/login\.ts no longer exists/);
    assert.match(human.stdout, /2 stale memories/);
  });

  it("surfacing a memory whose file vanished adds one note line; show says so too", async () => {
    const { home, project, loginPath } = await repository();
    git(project, "mv", "src/auth/login.ts", "src/auth/signin.ts");
    const recalled = await runCliInProcess(["recall", "how are tokens refreshed in the login module"], {
      home,
      cwd: project,
    });
    assert.equal(recalled.code, 0, recalled.stderr);
    assert.match(recalled.stdout, /token refresh lives in the login module/);
    const notes = recalled.stdout.split("\n").filter((line) => line.startsWith("note: "));
    assert.deepEqual(notes, ["note: src/auth/login.ts no longer exists"]);
    const shown = await runCliInProcess(["show", path.basename(loginPath), "--json"], { home, cwd: project });
    const memory = JSON.parse(shown.stdout);
    assert.equal(memory.source, "cli");
    assert.ok(memory.anchors.some((a: { change: string }) => a.change === "vanished"));
  });

  it("the exported check finds the same from the library", async () => {
    const { project, loginPath } = await repository();
    fs.rmSync(path.join(project, "src/auth/login.ts"));
    const stale = await findStaleMemories(path.dirname(loginPath));
    assert.deepEqual(
      stale.map((memory) => memory.file),
      [path.basename(loginPath)],
    );
  });
});
