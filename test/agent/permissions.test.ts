import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { mainAgentPermissions, memoryOnlyPermissions } from "../../src/agent/permissions.ts";
import { createToolContext } from "../../src/agent/tools/spec.ts";
import { makeTempDir } from "../helpers/temp.ts";

function setup() {
  const home = makeTempDir();
  const project = path.join(home, "shop");
  const memoryDir = path.join(home, ".claude/projects/-shop/memory");
  fs.mkdirSync(path.join(project, "src/auth"), { recursive: true });
  fs.mkdirSync(memoryDir, { recursive: true });
  const context = createToolContext({ cwd: project, memoryDir });
  return { home, project, memoryDir, context };
}

describe("mainAgentPermissions", () => {
  it("allows reads anywhere and writes inside the project and the memory dir", async () => {
    const { project, memoryDir, context } = setup();
    const check = mainAgentPermissions({ projectRoot: project, memoryDir });
    assert.deepEqual(await check("Read", { file_path: "/etc/hostname" }, context), { allow: true });
    assert.deepEqual(await check("Write", { file_path: "src/auth/login.ts" }, context), { allow: true });
    assert.deepEqual(await check("Edit", { file_path: path.join(memoryDir, "MEMORY.md") }, context), {
      allow: true,
    });
  });

  it("refuses writes elsewhere with a message naming where it may write", async () => {
    const { home, project, memoryDir, context } = setup();
    const check = mainAgentPermissions({ projectRoot: project, memoryDir });
    const outside = await check("Write", { file_path: path.join(home, ".ssh/authorized_keys") }, context);
    assert.equal(outside.allow, false);
    assert.match((outside as { message: string }).message, /outside the places this agent may write/);
    assert.match((outside as { message: string }).message, new RegExp(project));
    const parentDir = await check("Write", { file_path: "../elsewhere.txt" }, context);
    assert.equal(parentDir.allow, false);
    const unknown = await check("Bash", { command: "rm -rf /" }, context);
    assert.equal(unknown.allow, false);
  });

  it("refuses a symlink inside the project that leads outside", async () => {
    const { home, project, memoryDir, context } = setup();
    fs.mkdirSync(path.join(home, "secret-place"));
    fs.symlinkSync(path.join(home, "secret-place"), path.join(project, "link"));
    const check = mainAgentPermissions({ projectRoot: project, memoryDir });
    const decision = await check("Write", { file_path: "link/x.txt" }, context);
    assert.equal(decision.allow, false);
  });
});

describe("memoryOnlyPermissions", () => {
  it("allows writes only inside the memory dir", async () => {
    const { memoryDir, context } = setup();
    const check = memoryOnlyPermissions({ memoryDir });
    assert.deepEqual(await check("Grep", { pattern: "x" }, context), { allow: true });
    assert.deepEqual(await check("Write", { file_path: path.join(memoryDir, "feedback-x.md") }, context), {
      allow: true,
    });
    const code = await check("Write", { file_path: "src/auth/login.ts" }, context);
    assert.equal(code.allow, false);
    assert.match((code as { message: string }).message, /only inside the memory directory/);
    for (const hostile of [
      `${memoryDir}/../../outside.md`,
      `${memoryDir}/%2e%2e/outside.md`,
      `${memoryDir}/．．／outside.md`,
      `${memoryDir}/a\0.md`,
    ]) {
      const decision = await check("Edit", { file_path: hostile }, context);
      assert.equal(decision.allow, false, hostile);
    }
  });
});
