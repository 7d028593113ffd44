import type { SetupScope } from "../shared/host.ts";

/**
 * What a Codex user must know after `memdir setup codex`: hooks run only once trusted (setup
 * trusts its own in user scope; Codex reads trust from the user's config only), and the MCP server
 * is required (docs/integrations.md#codex-cli).
 */
export function codexSetupNote(scope: SetupScope): string {
  const trust =
    scope === "user"
      ? "Codex runs hooks only once trusted: memdir trusted the hooks it wrote ([hooks.state] in config.toml; " +
        "Codex's /hooks lists them). A hook you edit later needs trusting again in /hooks (memdir doctor says so)."
      : "Codex runs hooks only once trusted, and reads trust from your user config only: start `codex` in this " +
        "project, open /hooks and trust memdir's four hooks (`codex exec` skips untrusted hooks without a word).";
  return (
    `${trust} The MCP server is required = true, so memory_save is there from the first prompt; if memdir ` +
    "cannot start, Codex stops instead of running without it (set required = false in [mcp_servers.memdir] to prefer that)."
  );
}
