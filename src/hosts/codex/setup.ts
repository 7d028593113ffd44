import fs from "node:fs";
import path from "node:path";
import type { FileEdit, HookEvents, SetupRequest } from "../shared/host.ts";
import { withHooks } from "../shared/json-config.ts";
import { groupHooks, mcpServer } from "../shared/setup-common.ts";
import { withServerTable } from "../shared/toml-config.ts";
import { type HookTrust, memdirHookTrust, withHookTrust } from "./hook-trust.ts";

/**
 * Claude Code's event names, with the file hook after Codex's shell tool: Codex has no read tool
 * (its model reads files through `exec_command`, which a PostToolUse payload names `Bash`), and it
 * hands a PostToolUse's `additionalContext` to the model's next request
 * (test/integration/codex.test.ts, "file hook"). The hook answers only for a command line that
 * reads one file (src/hosts/shared/shell-read.ts); an `apply_patch` edit fires no PostToolUse in
 * Codex 0.169.0 (docs/integrations.md, "Codex and the file hook"). Anchored, as Codex tests the
 * matcher as a regular expression.
 */
export const CODEX_EVENTS: HookEvents = [
  ["SessionStart", "session-start"],
  ["UserPromptSubmit", "user-prompt-submit"],
  ["PostToolUse", "post-tool-use", "^Bash$"],
  ["Stop", "stop"],
];

/**
 * Codex's MCP server gets `required = true`: Codex builds the first turn's tools after about a
 * second whether an optional server answered or not, and on a loaded machine any stdio server
 * takes longer (bench/mcp-startup.ts: spawn → tools/list 2.1 s median at load 22 on 2 cores, a
 * minimal SDK server the same; docs/integrations.md#codex-cli). test/integration/codex.test.ts
 * checks the tools are on the first request.
 * The price: when memdir cannot start, Codex stops with "required MCP servers failed to
 * initialize" instead of running without memory. `startup_timeout_sec` gives that start room on
 * a slow machine. Both are written only when absent, so a user's own value stays.
 */
const CODEX_SERVER_DEFAULTS: Array<[string, boolean | number]> = [
  ["required", true],
  ["startup_timeout_sec", 30],
];

/**
 * Codex: hooks in `hooks.json`, the MCP server in `config.toml`, both in `CODEX_HOME` (`~/.codex`)
 * or the repository's `.codex/`. In user scope the same config.toml also gets a trust entry per
 * memdir hook (hook-trust.ts): Codex reads hook trust from the user's config only, so hooks
 * in a project's `.codex/` must be trusted in Codex's /hooks.
 */
export function codexSetup(request: SetupRequest): FileEdit[] {
  const user = request.scope === "user";
  const dir = user ? codexHomeAsCodexSees(request) : path.join(request.projectRoot, ".codex");
  const config = path.join(dir, "config.toml");
  const hooksFile = path.join(dir, "hooks.json");
  const server = { ...mcpServer(request), defaults: CODEX_SERVER_DEFAULTS };
  // The hooks edit runs first (planEdits keeps the order): the trust entries follow what it wrote.
  let trust: { wanted: HookTrust[]; dropped: HookTrust[] } = { wanted: [], dropped: [] };
  return [
    {
      path: hooksFile,
      format: "json",
      edit: (doc) => {
        const next = withHooks(doc, request.remove ? [] : groupHooks(request, CODEX_EVENTS, "s"), hooksFile);
        if (user)
          trust = { wanted: memdirHookTrust(hooksFile, next), dropped: memdirHookTrust(hooksFile, doc) };
        return next;
      },
    },
    {
      path: config,
      format: "toml",
      edit: (text) =>
        withHookTrust(
          withServerTable(text, request.remove ? null : server, config),
          trust.wanted,
          trust.dropped,
          config,
        ),
    },
  ];
}

/**
 * The folder Codex reads its user config from: `CODEX_HOME` with its links resolved (Codex
 * canonicalizes it, and the trust keys carry the path), or `~/.codex` as `HOME` spells it.
 */
function codexHomeAsCodexSees(request: SetupRequest): string {
  if (!request.codexHome) return path.join(request.home, ".codex");
  // Not there yet: the nearest folder that is, resolved, and the rest setup creates.
  const missing: string[] = [];
  for (let folder = path.resolve(request.codexHome); ; folder = path.dirname(folder)) {
    try {
      return path.join(fs.realpathSync(folder), ...missing);
    } catch {
      if (path.dirname(folder) === folder) return path.resolve(request.codexHome);
      missing.unshift(path.basename(folder));
    }
  }
}
