import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { resolveConfig } from "../../src/config.ts";
import { loadMemoryRules } from "../../src/instructions/memory-rules.ts";
import { resolveMemoryLocation } from "../../src/memdir/location/paths.ts";
import { makeTempDir } from "../helpers/temp.ts";

describe("loadMemoryRules", () => {
  it("creates the memory directory and returns the rules naming it", async () => {
    const base = makeTempDir();
    const home = path.join(base, "home");
    const project = path.join(base, "shop");
    fs.mkdirSync(project, { recursive: true });
    const config = resolveConfig({ cwd: project, home, env: {} });
    const location = await resolveMemoryLocation({ cwd: project, home, env: {} });
    assert.equal(fs.existsSync(location.memoryDir), false);
    const rules = await loadMemoryRules({ config, location });
    assert.ok(fs.statSync(location.memoryDir).isDirectory());
    assert.ok(rules?.includes(location.memoryDir));
  });

  it("returns null and creates nothing when auto memory is off", async () => {
    const base = makeTempDir();
    const home = path.join(base, "home");
    const env = { CLAUDE_CODE_DISABLE_AUTO_MEMORY: "1" };
    const config = resolveConfig({ cwd: base, home, env });
    const location = await resolveMemoryLocation({ cwd: base, home, env });
    assert.equal(await loadMemoryRules({ config, location }), null);
    assert.equal(fs.existsSync(location.memoryDir), false);
  });
});
