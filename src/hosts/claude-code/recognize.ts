import path from "node:path";
import { isInside } from "../../memdir/fs/inside.ts";

/**
 * Whether the agent running this hook is Claude Code: `CLAUDECODE=1` (set for the commands it runs,
 * though some versions strip it from hooks' environment), or else its transcript, which lives
 * under `<config dir>/projects/`. Other hosts (Codex, Gemini CLI)
 * have no auto memory memdir would double, so they get the whole cycle.
 */
export function hostIsClaudeCode(
  env: NodeJS.ProcessEnv,
  transcriptPath: string | undefined,
  claudeConfigDir: string,
): boolean {
  if (env.CLAUDECODE === "1") return true;
  if (!transcriptPath || !path.isAbsolute(transcriptPath)) return false;
  return isInside(path.join(claudeConfigDir, "projects"), transcriptPath);
}
