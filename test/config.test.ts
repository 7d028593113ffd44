import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { autoMemoryDirectorySetting, type ConfigOptions, resolveConfig } from "../src/config.ts";
import { makeTempDir, writeTree } from "./helpers/temp.ts";

/** A temp HOME and project; `user` / `project` / `local` become the settings files. */
function world(settings: { user?: object; project?: object; local?: object } = {}) {
  const base = makeTempDir();
  const home = path.join(base, "home");
  const project = path.join(base, "project");
  fs.mkdirSync(home, { recursive: true });
  fs.mkdirSync(project, { recursive: true });
  if (settings.user) writeTree(home, { ".claude/settings.json": JSON.stringify(settings.user) });
  if (settings.project) writeTree(project, { ".claude/settings.json": JSON.stringify(settings.project) });
  if (settings.local) writeTree(project, { ".claude/settings.local.json": JSON.stringify(settings.local) });
  const resolve = (env: NodeJS.ProcessEnv = {}, extra: ConfigOptions = {}) =>
    resolveConfig({ cwd: project, home, env, ...extra });
  return { base, home, project, resolve };
}

describe("auto memory switch", () => {
  it("is on by default", () => {
    const config = world().resolve();
    assert.equal(config.autoMemory, true);
    assert.equal(config.autoMemoryOffReason, null);
  });

  for (const [name, value] of [
    ["CLAUDE_CODE_DISABLE_AUTO_MEMORY", "1"],
    ["CLAUDE_CODE_DISABLE_AUTO_MEMORY", "true"],
    ["MEMDIR_DISABLE", "1"],
  ] as const) {
    it(`is off with ${name}=${value}, and says so`, () => {
      const config = world().resolve({ [name]: value });
      assert.equal(config.autoMemory, false);
      assert.equal(config.autoMemoryOffReason, `${name}=${value}`);
    });
  }

  it("is off in bare mode, from the option or MEMDIR_BARE=1", () => {
    const { resolve } = world();
    assert.equal(resolve({}, { bare: true }).autoMemory, false);
    assert.equal(resolve({}, { bare: true }).autoMemoryOffReason, "bare mode");
    assert.equal(resolve({ MEMDIR_BARE: "1" }).autoMemory, false);
  });

  it("is off with autoMemoryEnabled: false in user settings", () => {
    const config = world({ user: { autoMemoryEnabled: false } }).resolve();
    assert.equal(config.autoMemory, false);
    assert.match(config.autoMemoryOffReason ?? "", /user settings/);
  });

  it("is off with autoMemoryEnabled: false in project settings or project-local settings", () => {
    for (const settings of [
      { project: { autoMemoryEnabled: false } },
      { local: { autoMemoryEnabled: false } },
    ]) {
      const config = world(settings).resolve();
      assert.equal(config.autoMemory, false, JSON.stringify(settings));
      assert.match(config.autoMemoryOffReason ?? "", /project settings/);
    }
  });

  it("lets project settings beat user settings, and settings.local.json beat settings.json", () => {
    assert.equal(
      world({ user: { autoMemoryEnabled: false }, project: { autoMemoryEnabled: true } }).resolve()
        .autoMemory,
      true,
    );
    assert.equal(
      world({ user: { autoMemoryEnabled: true }, project: { autoMemoryEnabled: false } }).resolve()
        .autoMemory,
      false,
    );
    assert.equal(
      world({ project: { autoMemoryEnabled: false }, local: { autoMemoryEnabled: true } }).resolve()
        .autoMemory,
      true,
    );
  });

  it("lets the environment beat settings: =1 turns off what settings turn on", () => {
    const { resolve } = world({ user: { autoMemoryEnabled: true }, project: { autoMemoryEnabled: true } });
    assert.equal(resolve({ CLAUDE_CODE_DISABLE_AUTO_MEMORY: "1" }).autoMemory, false);
  });

  for (const name of ["CLAUDE_CODE_DISABLE_AUTO_MEMORY", "MEMDIR_DISABLE"]) {
    it(`forces memory on with ${name}=0, against settings and bare mode`, () => {
      const { resolve } = world({
        user: { autoMemoryEnabled: false },
        project: { autoMemoryEnabled: false },
      });
      const config = resolve({ [name]: "0", MEMDIR_BARE: "1" });
      assert.equal(config.autoMemory, true);
      assert.equal(config.autoMemoryOffReason, null);
      assert.equal(resolve({ [name]: "false" }, { bare: true }).autoMemory, true);
    });
  }

  it("stays off when one variable says off and the other says on", () => {
    const config = world().resolve({ CLAUDE_CODE_DISABLE_AUTO_MEMORY: "0", MEMDIR_DISABLE: "1" });
    assert.equal(config.autoMemory, false);
    assert.equal(config.autoMemoryOffReason, "MEMDIR_DISABLE=1");
  });

  it("ignores values it does not understand: an empty variable, a string setting, a broken file", () => {
    assert.equal(world().resolve({ CLAUDE_CODE_DISABLE_AUTO_MEMORY: "" }).autoMemory, true);
    assert.equal(world({ user: { autoMemoryEnabled: "false" } }).resolve().autoMemory, true);
    const broken = world();
    writeTree(broken.home, { ".claude/settings.json": "{ not json" });
    assert.equal(broken.resolve().autoMemory, true);
  });
});

describe("auto dream switch", () => {
  it("is on by default and follows autoDreamEnabled, project over user, env over both", () => {
    assert.equal(world().resolve().autoDream.enabled, true);
    assert.equal(world({ user: { autoDreamEnabled: false } }).resolve().autoDream.enabled, false);
    assert.equal(
      world({ user: { autoDreamEnabled: false }, project: { autoDreamEnabled: true } }).resolve().autoDream
        .enabled,
      true,
    );
    assert.equal(
      world({ project: { autoDreamEnabled: true } }).resolve({ MEMDIR_AUTO_DREAM: "0" }).autoDream.enabled,
      false,
    );
  });

  it("is off whenever auto memory is off, and in bare mode", () => {
    assert.equal(world().resolve({ MEMDIR_DISABLE: "1" }).autoDream.enabled, false);
    assert.equal(
      world().resolve({ CLAUDE_CODE_DISABLE_AUTO_MEMORY: "0" }, { bare: true }).autoDream.enabled,
      false,
    );
  });
});

describe("team memory switch", () => {
  it("is off by default, on by setting or MEMDIR_TEAM_MEMORY=1, and never without auto memory", () => {
    assert.equal(world().resolve().teamMemory, false);
    assert.equal(world({ project: { teamMemoryEnabled: true } }).resolve().teamMemory, true);
    assert.equal(
      world({ project: { teamMemoryEnabled: true } }).resolve({ MEMDIR_TEAM_MEMORY: "0" }).teamMemory,
      false,
    );
    assert.equal(world().resolve({ MEMDIR_TEAM_MEMORY: "1", MEMDIR_DISABLE: "1" }).teamMemory, false);
  });
});

describe("memory location", () => {
  it("is ~/.claude by default", () => {
    const w = world();
    assert.equal(w.resolve().root, path.join(w.home, ".claude"));
  });

  it("reads autoMemoryDirectory from user settings as the memory dir, not as a root", () => {
    const base = makeTempDir();
    const target = path.join(base, "elsewhere");
    const w = world({ user: { autoMemoryDirectory: target } });
    assert.equal(w.resolve().root, path.join(w.home, ".claude"));
    assert.equal(autoMemoryDirectorySetting(path.join(w.home, ".claude"), w.home), target);
  });

  it("never reads autoMemoryDirectory from project or project-local settings", () => {
    const w = world({
      project: { autoMemoryDirectory: "/tmp/evil" },
      local: { autoMemoryDirectory: "~/.ssh" },
    });
    assert.equal(w.resolve().root, path.join(w.home, ".claude"));
    assert.equal(autoMemoryDirectorySetting(path.join(w.home, ".claude"), w.home), null);
  });

  it("takes the option over MEMDIR_ROOT over Claude Code's config dir", () => {
    const w = world({ user: { autoMemoryDirectory: "/from/settings" } });
    assert.equal(w.resolve({ MEMDIR_ROOT: "/from/env" }).root, "/from/env");
    assert.equal(w.resolve({ MEMDIR_ROOT: "/from/env" }, { root: "/from/option" }).root, "/from/option");
    assert.equal(w.resolve({ MEMDIR_ROOT: "~/mem" }).root, path.join(w.home, "mem"));
  });
});

describe("memdir's own switches beat the host's", () => {
  it("stays on with MEMDIR_DISABLE=0 or memdirEnabled: true although CLAUDE_CODE_DISABLE_AUTO_MEMORY=1", () => {
    const { resolve } = world();
    assert.equal(resolve({ CLAUDE_CODE_DISABLE_AUTO_MEMORY: "1", MEMDIR_DISABLE: "0" }).autoMemory, true);
    const explicit = world({ user: { memdirEnabled: true, autoMemoryEnabled: false } });
    assert.equal(explicit.resolve({ CLAUDE_CODE_DISABLE_AUTO_MEMORY: "1" }).autoMemory, true);
    assert.equal(explicit.resolve({ CLAUDE_CODE_DISABLE_AUTO_MEMORY: "1" }).hostMemory.on, false);
  });

  it("is off with memdirEnabled: false even when Claude Code's memory is on", () => {
    const config = world({ project: { memdirEnabled: false } }).resolve({
      CLAUDE_CODE_DISABLE_AUTO_MEMORY: "0",
    });
    assert.equal(config.autoMemory, false);
    assert.match(config.autoMemoryOffReason ?? "", /memdirEnabled: false in project settings/);
    assert.equal(config.hostMemory.on, true);
  });

  it("reports Claude Code's own memory by its documented switches", () => {
    assert.equal(world().resolve().hostMemory.on, true);
    assert.equal(world({ local: { autoMemoryEnabled: false } }).resolve().hostMemory.on, false);
    assert.equal(world().resolve({ CLAUDE_CODE_SIMPLE: "1" }).hostMemory.on, false);
    assert.equal(
      world().resolve({ MEMDIR_DISABLE: "1" }).hostMemory.on,
      true,
      "memdir's switch is not the host's",
    );
  });
});

describe("Claude Code's locations", () => {
  it("uses CLAUDE_CONFIG_DIR as the root after --root and MEMDIR_ROOT, with its settings", () => {
    const { base, resolve } = world();
    const configDir = path.join(base, "cc-config");
    writeTree(configDir, { "settings.json": JSON.stringify({ autoMemoryEnabled: false }) });
    const config = resolve({ CLAUDE_CONFIG_DIR: configDir });
    assert.equal(config.root, configDir);
    assert.equal(config.hostMemory.on, false, "user settings come from the config dir");
    assert.equal(
      resolve({ CLAUDE_CONFIG_DIR: configDir, MEMDIR_ROOT: path.join(base, "r") }).root,
      path.join(base, "r"),
    );
    assert.equal(
      resolve({ CLAUDE_CONFIG_DIR: configDir }, { root: path.join(base, "o") }).root,
      path.join(base, "o"),
    );
  });

  it("names the project folder after CLAUDE_CODE_PROJECT_DIR_NAME, ignoring one that is not a plain name", async () => {
    const { resolveMemoryLocation } = await import("../src/memdir/location/paths.ts");
    const { home, project } = world();
    const named = await resolveMemoryLocation({
      cwd: project,
      home,
      env: { CLAUDE_CODE_PROJECT_DIR_NAME: "shop" },
    });
    assert.equal(named.memoryDir, path.join(home, ".claude", "projects", "shop", "memory"));
    const hostile = await resolveMemoryLocation({
      cwd: project,
      home,
      env: { CLAUDE_CODE_PROJECT_DIR_NAME: "../../x" },
    });
    assert.notEqual(path.basename(hostile.projectDir), "x");
    assert.ok(hostile.projectDir.startsWith(path.join(home, ".claude", "projects")));
  });
});

describe("model opt-in", () => {
  it("marks a provider found only through an API key as not opted in", () => {
    const { resolve } = world();
    assert.equal(resolve({ ANTHROPIC_API_KEY: "k" }).model.optIn, null);
    assert.equal(resolve({ ANTHROPIC_API_KEY: "k" }).model.provider, "anthropic");
    assert.equal(
      resolve({ ANTHROPIC_API_KEY: "k", MEMDIR_PROVIDER: "anthropic" }).model.optIn,
      "MEMDIR_PROVIDER=anthropic",
    );
    assert.equal(resolve({ OPENAI_API_KEY: "k", MEMDIR_MODEL: "m" }).model.optIn, "MEMDIR_MODEL=m");
    const fromSettings = world({ user: { memdirProvider: "openai" } }).resolve({ OPENAI_API_KEY: "k" }).model;
    assert.equal(fromSettings.provider, "openai");
    assert.match(fromSettings.optIn ?? "", /memdirProvider in user settings/);
  });
});
