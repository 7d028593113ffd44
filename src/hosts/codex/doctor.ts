import fs from "node:fs/promises";
import path from "node:path";
import type { AgentFolders, HostIssue } from "../shared/host.ts";
import { parseJsonConfig } from "../shared/json-config.ts";
import { untrustedMemdirHooks } from "./hook-trust.ts";

async function readOrNull(file: string): Promise<string | null> {
  return fs.readFile(file, "utf8").catch(() => null);
}

/**
 * memdir's hooks in Codex's user hooks.json (`CODEX_HOME`, else `~/.codex`) that Codex will not
 * run: not trusted in config.toml, or changed since they were — `codex exec` skips them without a
 * word, so recall and the index stop reaching the model with nothing to say why
 * (docs/integrations.md#codex-cli). None when Codex has no hooks.json or memdir no hook in it.
 */
export async function codexHookIssues(folders: AgentFolders & { home: string }): Promise<HostIssue[]> {
  const given = folders.codexHome || path.join(folders.home, ".codex");
  // Codex resolves CODEX_HOME's links, and its trust keys carry the resolved path.
  const dir = folders.codexHome ? await fs.realpath(given).catch(() => given) : given;
  const hooksFile = path.join(dir, "hooks.json");
  const hooksText = await readOrNull(hooksFile);
  if (hooksText === null) return [];
  const configFile = path.join(dir, "config.toml");
  let untrusted: ReturnType<typeof untrustedMemdirHooks>;
  try {
    untrusted = untrustedMemdirHooks(
      hooksFile,
      parseJsonConfig(hooksText, hooksFile),
      await readOrNull(configFile),
      configFile,
    );
  } catch {
    return []; // a file memdir cannot read: Codex reports that one itself
  }
  return untrusted.map(({ key, state }) => ({
    code: "codex-hook-untrusted",
    file: configFile,
    message:
      `Codex will not run memdir's hook ${key}: ${state === "modified" ? "it changed since it was trusted" : "it is not trusted"} ` +
      "(codex exec skips it silently) — trust it in Codex's /hooks, or run `memdir setup codex` again",
  }));
}
