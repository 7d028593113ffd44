import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

/** Where agent installs are kept between runs: one folder per package and version, shared by every checkout on the machine. */
export function agentCacheRoot(): string {
  const base = process.env.XDG_CACHE_HOME || path.join(os.homedir(), ".cache");
  return path.join(base, "memdir-test");
}

const NETWORK_ERROR = /E(NOTFOUND|AI_AGAIN|CONNREFUSED|CONNRESET|TIMEDOUT|NETUNREACH|HOSTUNREACH)|network/i;

/** A real agent CLI from the npm registry, pinned. */
export interface AgentPackage {
  /** The npm package, e.g. `@openai/codex`. */
  name: string;
  /** The pinned version. */
  version: string;
  /** The folder name in the cache (`<slug>-<version>`). */
  slug: string;
  /**
   * The working binary inside an install prefix, or null when there is none that answers for this
   * version (each agent ships its binary its own way: a wrapper's postinstall, a platform package).
   */
  findBinary(prefix: string): string | null;
  /**
   * Install with a package.json and package-lock.json in the prefix (`--save-exact`), for a
   * folder an agent expects to find installed as it would install it itself.
   */
  manifest?: boolean;
}

/** True when `bin --version` (or `args`) exits 0 and prints `version`. */
export function answersVersion(bin: string, version: string, args: string[] = ["--version"]): boolean {
  if (!fs.existsSync(bin)) return false;
  const result = spawnSync(bin, args, { encoding: "utf8", timeout: 60_000 });
  return result.status === 0 && `${result.stdout}${result.stderr}`.includes(version);
}

/**
 * Installs `agent` from the npm registry (only there) into the cache, once, and returns the path
 * of its binary. Returns `{skip}` only when the registry cannot be reached; any other install
 * failure throws. Installs into a fresh folder renamed into place, so two test runs at the same
 * time never see a half-installed copy.
 */
export function installAgent(agent: AgentPackage): { bin: string } | { skip: string } {
  const root = agentCacheRoot();
  const target = path.join(root, `${agent.slug}-${agent.version}`);
  const cached = fs.existsSync(target) ? agent.findBinary(target) : null;
  if (cached) return { bin: cached };
  fs.mkdirSync(root, { recursive: true });
  fs.rmSync(target, { recursive: true, force: true }); // a broken copy: install again
  const staging = fs.mkdtempSync(`${target}.partial-`);
  const spec = `${agent.name}@${agent.version}`;
  const install = spawnSync(
    "npm",
    [
      "install",
      "--prefix",
      staging,
      "--no-audit",
      "--no-fund",
      agent.manifest === true ? "--save-exact" : "--no-save",
      "--loglevel=error",
      // One retry: an unreachable registry is told in seconds, not after npm's default minute.
      "--fetch-retries=1",
      "--fetch-retry-mintimeout=2000",
      "--fetch-retry-maxtimeout=5000",
      spec,
    ],
    { encoding: "utf8", timeout: 900_000 },
  );
  if (install.status !== 0) {
    fs.rmSync(staging, { recursive: true, force: true });
    const output = `${install.stderr ?? ""}${install.stdout ?? ""}${install.error?.message ?? ""}`;
    if (NETWORK_ERROR.test(output)) return { skip: `the npm registry cannot be reached to install ${spec}` };
    throw new Error(`npm install ${spec} failed:\n${output}`);
  }
  try {
    fs.renameSync(staging, target);
  } catch {
    fs.rmSync(staging, { recursive: true, force: true }); // another run got there first
  }
  const bin = agent.findBinary(target);
  if (!bin) throw new Error(`${spec} installed, but no working binary in it`);
  return { bin };
}
