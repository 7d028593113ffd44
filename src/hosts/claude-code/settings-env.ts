/**
 * The `env` of the Claude Code settings file setup just wrote (`files`: each path and its text
 * after the write): Claude Code gives it to every hook, so memdir's configuration as its hooks see
 * it reads these over the environment.
 */
export function claudeSettingsEnv(
  files: ReadonlyArray<{ path: string; after: string }>,
): Record<string, string> {
  const settings = files.find((file) => file.path.endsWith("settings.json"));
  if (!settings) return {};
  try {
    const doc = JSON.parse(settings.after) as { env?: unknown };
    if (typeof doc.env !== "object" || doc.env === null) return {};
    return Object.fromEntries(
      Object.entries(doc.env).filter((entry): entry is [string, string] => typeof entry[1] === "string"),
    );
  } catch {
    return {};
  }
}
