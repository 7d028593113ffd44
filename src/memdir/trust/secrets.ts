import { MemdirError } from "../../errors.ts";
import { CONNECTION_SCHEMES, GITHUB_PREFIXES, RULES } from "./secret-rules.ts";
import { isDummyToken } from "./secret-values.ts";

/** One credential found in a text: what it looks like and where. Never the value itself. */
export interface SecretFinding {
  /** Human name of the credential kind, e.g. `GitHub personal access token`. */
  kind: string;
  /** 1-based line of the match's start. */
  line: number;
}

/** Maps a character offset to its 1-based line with a binary search over newline offsets. */
function lineLocator(text: string): (index: number) => number {
  const newlines: number[] = [];
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) newlines.push(i);
  return (index) => {
    let low = 0;
    let high = newlines.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (newlines[middle] < index) low = middle + 1;
      else high = middle;
    }
    return low + 1;
  };
}

interface InternalFinding extends SecretFinding {
  article: "a" | "an";
  order: number;
}

function findWithArticles(text: string): InternalFinding[] {
  const lower = text.toLowerCase();
  const lineOf = lineLocator(text);
  const findings: InternalFinding[] = [];
  const seen = new Set<string>();
  const flaggedLines = new Set<number>();
  RULES.forEach((rule, order) => {
    if (rule.hints && !rule.hints.some((hint) => lower.includes(hint))) return;
    const pattern = new RegExp(rule.pattern.source, rule.pattern.flags);
    for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) {
      const valid = rule.validate ? rule.validate(match, text) : !isDummyToken(match[0]);
      // A match that is not a secret may hide one inside it (`env: DB_PASSWORD=…` first matches
      // the key `env`): look again one character further on instead of after the whole match.
      if (!valid) {
        pattern.lastIndex = match.index + 1;
        continue;
      }
      const line = lineOf(match.index);
      if (rule.generic && flaggedLines.has(line)) continue;
      const described = rule.describe ? rule.describe(match) : { kind: rule.kind!, article: rule.article! };
      const key = `${described.kind}\u0000${line}`;
      if (seen.has(key)) continue;
      seen.add(key);
      flaggedLines.add(line);
      findings.push({ ...described, line, order });
    }
  });
  return findings.sort((a, b) => a.line - b.line || a.order - b.order);
}

/**
 * Credentials in a text, as `{kind, line}` pairs sorted by line. Never returns the values.
 * Placeholders (`<your-key>`, `${VAR}`, `process.env.X`, `xxx`, `changeme`, AWS's documented
 * `…EXAMPLE` keys) and sentences that merely mention passwords are not findings.
 *
 * @example
 * findSecrets("token: ghp_…") // [{ kind: "GitHub personal access token", line: 1 }]
 */
export function findSecrets(text: string): SecretFinding[] {
  return findWithArticles(text).map(({ kind, line }) => ({ kind, line }));
}

/** The human names of every kind {@link findSecrets} can report that has a fixed name. */
export const SECRET_KINDS: readonly string[] = [
  ...RULES.flatMap((rule) => (rule.kind ? [rule.kind] : [])),
  ...Object.values(GITHUB_PREFIXES).map((d) => d.kind),
  ...Object.values(CONNECTION_SCHEMES).map((d) => d.kind),
];

const ARTICLES = new Map<string, "a" | "an">([
  ...RULES.flatMap((rule) => (rule.kind && rule.article ? [[rule.kind, rule.article] as const] : [])),
  ...[...Object.values(GITHUB_PREFIXES), ...Object.values(CONNECTION_SCHEMES)].map(
    (described) => [described.kind, described.article] as const,
  ),
]);

/**
 * A finding's kind with its article, for messages: `an AWS access key ID`, `a private key`.
 *
 * @example
 * `${file} line ${finding.line} holds ${secretKindPhrase(finding.kind)}`
 */
export function secretKindPhrase(kind: string): string {
  return `${ARTICLES.get(kind) ?? "a"} ${kind}`;
}

/**
 * Throws when a text holds a credential. `where` names the text (a file, "body", a tool call);
 * `lineAt` says where a finding's line of `text` is (default `line N`; null: say no line, for a
 * text that is one line of something else, such as a title).
 *
 * @throws MemdirError("secret"): `memdir: secret: <where>: looks like a <kind> (line N); memories
 *   must not hold credentials — remove it and save again`. The value is never part of the message.
 * @example
 * assertNoSecrets(body, "feedback-deploy.md");
 */
export function assertNoSecrets(
  text: string,
  where: string,
  lineAt: ((line: number) => string) | null = (line) => `line ${line}`,
): void {
  const findings = findWithArticles(text);
  if (findings.length === 0) return;
  const [first, ...rest] = findings;
  const at = (finding: InternalFinding) => (lineAt === null ? "" : lineAt(finding.line));
  const more =
    rest.length === 0
      ? ""
      : `, and ${rest.length} more${lineAt === null ? "" : ` (${rest.map(at).join(", ")})`}`;
  throw new MemdirError(
    "secret",
    `memdir: secret: ${where}: looks like ${first.article} ${first.kind}${lineAt === null ? "" : ` (${at(first)})`}${more}; ` +
      `memories must not hold credentials — remove it and save again`,
  );
}
