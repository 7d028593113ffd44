import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { makeTempDir } from "./helpers/temp.ts";

// The package as a user gets it: `npm pack`, installed into an empty project, run there. No
// internet: the project gets a lockfile derived from ours (every dependency pinned with its
// integrity), and `npm ci --offline` takes the tarballs from the local npm cache, which holds them
// since node_modules was installed here. When the cache lacks one, the test skips and says so.

const root = path.resolve(import.meta.dirname, "..");
const packageJson = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")) as {
  name: string;
  version: string;
  dependencies: Record<string, string>;
  bin: Record<string, string>;
  engines: Record<string, string>;
};

function run(
  command: string,
  args: string[],
  options: { cwd: string; env?: Record<string, string>; input?: string },
) {
  return spawnSync(command, args, {
    cwd: options.cwd,
    // npm's update notifier asks the registry for a newer npm: no network from a test.
    env: { ...process.env, npm_config_update_notifier: "false", ...options.env },
    input: options.input ?? "",
    encoding: "utf8",
    timeout: 180_000,
  });
}

/** The app's lockfile: memdir from the tarball, each of its dependencies exactly as our lockfile has it. */
function appLockfile(tarball: string): object {
  const lock = JSON.parse(fs.readFileSync(path.join(root, "package-lock.json"), "utf8")) as {
    packages: Record<string, { dev?: boolean; link?: boolean }>;
  };
  const spec = `file:${tarball}`;
  const packages: Record<string, unknown> = {
    "": { name: "app", version: "1.0.0", dependencies: { memdir: spec } },
    "node_modules/memdir": {
      version: packageJson.version,
      resolved: spec,
      license: "MIT",
      dependencies: packageJson.dependencies,
      bin: packageJson.bin,
      engines: packageJson.engines,
    },
  };
  for (const [key, entry] of Object.entries(lock.packages)) {
    if (key === "" || entry.dev || entry.link) continue;
    packages[key] = entry;
  }
  return { name: "app", version: "1.0.0", lockfileVersion: 3, requires: true, packages };
}

describe("the packed package", () => {
  it("installs from its tarball into an empty project and runs there: --help, a hook, import()", async (t) => {
    const work = makeTempDir("memdir-pack-");
    const packed = run("npm", ["pack", "--json", "--pack-destination", work], { cwd: root });
    assert.equal(packed.status, 0, packed.stderr);
    const [info] = JSON.parse(packed.stdout.slice(packed.stdout.indexOf("["))) as Array<{
      filename: string;
      files: Array<{ path: string }>;
    }>;
    const shipped = new Set(info.files.map((file) => file.path));
    for (const file of [
      "LICENSE",
      "bin/memdir.js",
      "bin/package.json",
      "dist/index.js",
      ".claude-plugin/plugin.json",
      "hooks/hooks.json",
      ".mcp.json",
      // setup's errors send the user to it (src/hosts/shared/json-config.ts, INTEGRATIONS_DOC).
      "docs/integrations.md",
    ])
      assert.ok(shipped.has(file), `the tarball ships ${file}`);
    assert.deepEqual(
      [...shipped].filter((file) => file.endsWith(".map")),
      [],
      "no source maps: they would point at src/, which the package does not ship",
    );
    assert.deepEqual(
      [...shipped].filter(
        (file) =>
          file.startsWith("dist/") &&
          !fs.existsSync(path.join(root, "src", file.slice(5).replace(/(\.d)?\.js$|\.d\.ts$/, ".ts"))),
      ),
      [],
      "no files of deleted sources in dist/",
    );

    const tarball = path.join(work, info.filename);
    const app = path.join(work, "app");
    fs.mkdirSync(app);
    fs.writeFileSync(
      path.join(app, "package.json"),
      JSON.stringify({
        name: "app",
        version: "1.0.0",
        private: true,
        type: "module",
        dependencies: { memdir: `file:${tarball}` },
      }),
    );
    fs.writeFileSync(path.join(app, "package-lock.json"), JSON.stringify(appLockfile(tarball), null, 2));
    const install = run("npm", ["ci", "--offline", "--no-audit", "--no-fund"], { cwd: app });
    if (install.status !== 0 && /ENOTCACHED/.test(install.stderr)) {
      t.skip("the local npm cache lacks a dependency of memdir, and this test never goes to the internet");
      return;
    }
    assert.equal(install.status, 0, install.stderr);

    const home = path.join(work, "home");
    fs.mkdirSync(home);
    const env = { HOME: home, MEMDIR_ROOT: path.join(home, ".claude") };
    const help = run("npx", ["--offline", "memdir", "--help"], { cwd: app, env });
    assert.equal(help.status, 0, help.stderr);
    assert.match(help.stdout, /Usage: memdir/);
    assert.match(help.stdout, /setup/);

    const hook = run("npx", ["--offline", "memdir", "hook", "session-start"], {
      cwd: app,
      env,
      input: JSON.stringify({ session_id: "s1", cwd: app, hook_event_name: "SessionStart" }),
    });
    assert.equal(hook.status, 0, hook.stderr);
    const output = JSON.parse(hook.stdout) as { hookSpecificOutput?: { additionalContext?: string } };
    assert.match(output.hookSpecificOutput?.additionalContext ?? "", /MEMORY\.md/);

    const imported = run(
      process.execPath,
      [
        "--input-type=module",
        "-e",
        'const m = await import("memdir"); console.log(typeof m.openMemdir, typeof m.saveMemory);',
      ],
      { cwd: app, env },
    );
    assert.equal(imported.status, 0, imported.stderr);
    assert.equal(imported.stdout.trim(), "function function");
  });
});
