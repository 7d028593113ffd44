import { MemdirError } from "../errors.ts";

/** One credential found in a text: what it looks like and where. Never the value itself. */
export interface SecretFinding {
  /** Human name of the credential kind, e.g. `GitHub personal access token`. */
  kind: string;
  /** 1-based line of the match's start. */
  line: number;
}

interface Described {
  kind: string;
  /** "a" or "an", so messages read naturally ("an AWS access key ID"). */
  article: "a" | "an";
}

interface SecretRule extends Partial<Described> {
  /** Global regex; every quantifier bounded or over a class that cannot overlap the next token. */
  pattern: RegExp;
  /** Lower-case substrings of which at least one must occur in the text (a cheap pre-filter). */
  hints?: string[];
  /** Names the kind from the match when one pattern covers several kinds. */
  describe?: (match: RegExpExecArray) => Described;
  /** Extra check on a match; default: the token is not a dummy (`xxxx`, `EXAMPLE`). */
  validate?: (match: RegExpExecArray, text: string) => boolean;
  /** Generic `password = …` style rules are skipped on lines a specific rule already flagged. */
  generic?: boolean;
}

const DUMMY_WORDS =
  /x{4}|\*{3}|example|placeholder|your|sample|dummy|redacted|changeme|fake|test_?key|0{8}|1234567/i;

/** A token that looks made up for documentation: few distinct characters or a telling word. */
function isDummyToken(token: string): boolean {
  return new Set(token).size < 6 || DUMMY_WORDS.test(token);
}

const PLACEHOLDER_WORDS = new Set([
  "password",
  "passwd",
  "pass",
  "pwd",
  "secret",
  "token",
  "apikey",
  "key",
  "null",
  "none",
  "nil",
  "undefined",
  "true",
  "false",
  "empty",
  "required",
  "optional",
  "string",
  "hidden",
  "masked",
  "test",
  "todo",
  "tbd",
  "n/a",
]);

/**
 * A value that stands for a secret without being one: `<your-key>`, `${VAR}`, `$VAR`,
 * `process.env.X`, `os.environ[…]`, `{{ secrets.X }}`, `xxx`, `***`, `changeme`, a code
 * reference such as `config.password` or `getToken()`, a path or a URL.
 */
export function isPlaceholderValue(value: string): boolean {
  const trimmed = value.trim();
  const lower = trimmed.toLowerCase();
  if (trimmed.length === 0) return true;
  if (/^[$%<{[(!&@#]/.test(trimmed)) return true; // ${VAR}, $VAR, %VAR%, <…>, {{…}}, [..], !vault, &anchor
  if (/\$\{|\{\{|process\.env|os\.environ|getenv|import\.meta\.env|secrets\./i.test(trimmed)) return true;
  if (/^(?:[xX*.\-_#•]+|0+)$/.test(trimmed)) return true;
  if (DUMMY_WORDS.test(trimmed) || /replace|insert|fixme|change_me|here$/i.test(trimmed)) return true;
  if (PLACEHOLDER_WORDS.has(lower)) return true;
  // A URL or a secret-manager reference (`op://vault/item/field`, `vault://…`): where the
  // secret lives, not the secret. URLs with an embedded password have their own rule.
  if (/^[a-z][a-z0-9+.-]{1,20}:\/\//i.test(trimmed) || /^(?:\/|\.\.?\/|~\/)/.test(trimmed)) return true;
  // A lower_snake_case name without digits (`pw_from_vault`, `db_password_secret`) is a
  // variable or key name in code and config; generated passwords mix cases or digits.
  if (/^[a-z]{2,}(?:_[a-z]{2,})+$/.test(trimmed)) return true;
  if (trimmed.includes("(")) return true; // a function call: getToken(), jwt.sign(payload, …)
  // A code reference such as config.password or req.body.token (a first segment without digits,
  // unlike a random password that merely contains a dot).
  if (/^[A-Za-z_$]+(?:\.[A-Za-z_$][\w$]*|\[[^\]]*\])+;?$/.test(trimmed)) return true;
  return false;
}

/** A value worth calling a secret: not a placeholder, long enough, and not a plain word. */
function isNonTrivialSecretValue(value: string): boolean {
  if (isPlaceholderValue(value)) return false;
  if (value.length < 6) return false;
  const classes = [/[a-z]/, /[A-Z]/, /[0-9]/, /[^A-Za-z0-9]/].filter((re) => re.test(value)).length;
  return classes >= 2 || value.length >= 16;
}

function base64UrlDecode(part: string): string {
  return Buffer.from(part.replace(/-/g, "+").replace(/_/g, "/"), "base64").toString("utf8");
}

function isJwt(match: RegExpExecArray): boolean {
  try {
    const header: unknown = JSON.parse(base64UrlDecode(match[1]));
    return !!header && typeof header === "object" && typeof (header as { alg?: unknown }).alg === "string";
  } catch {
    return false;
  }
}

/** Words naming a secret when they end an assignment's key (`DB_PASSWORD`, `apiKey`, `client_secret`). */
const SECRET_KEY_LAST_WORDS = new Set([
  "password",
  "passwd",
  "passphrase",
  "pass",
  "pwd",
  "secret",
  "token",
  "apikey",
  "credential",
  "credentials",
]);
const SECRET_KEY_QUALIFIERS = new Set([
  "api",
  "access",
  "secret",
  "private",
  "signing",
  "encryption",
  "master",
  "account",
  "service",
  "auth",
  "app",
  "client",
]);

function keyNamesSecret(key: string): boolean {
  const words = key
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
  const last = words[words.length - 1];
  if (!last) return false;
  if (SECRET_KEY_LAST_WORDS.has(last)) return true;
  // Run-together names: PGPASSWORD, MYSQL_ROOTPASSWORD, authtoken.
  if (/.(?:password|passwd|passphrase|secret|token)$/.test(last)) return true;
  return last === "key" && SECRET_KEY_QUALIFIERS.has(words[words.length - 2] ?? "");
}

/** True when base64 `encoded` decodes to `user:password` with a real password (HTTP basic, Docker). */
function decodesToUserAndPassword(encoded: string): boolean {
  const decoded = Buffer.from(encoded, "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  if (colon <= 0 || /[\u0000-\u001f]/.test(decoded)) return false;
  return isNonTrivialSecretValue(decoded.slice(colon + 1)) || decoded.length - colon > 12;
}

function hasBase64Body(text: string, from: number): boolean {
  return /[A-Za-z0-9+/]{40}/.test(text.slice(from, from + 500));
}

const CONNECTION_SCHEMES: Record<string, Described> = {
  postgres: { kind: "PostgreSQL connection string with a password", article: "a" },
  mysql: { kind: "MySQL connection string with a password", article: "a" },
  mongodb: { kind: "MongoDB connection string with a password", article: "a" },
  redis: { kind: "Redis connection string with a password", article: "a" },
  amqp: { kind: "AMQP (RabbitMQ) connection string with a password", article: "an" },
  sqlserver: { kind: "SQL Server connection string with a password", article: "a" },
  ftp: { kind: "FTP URL with a password", article: "an" },
  smtp: { kind: "SMTP URL with a password", article: "an" },
  ldap: { kind: "LDAP URL with a password", article: "an" },
  http: { kind: "URL with an embedded password", article: "a" },
};

function connectionScheme(scheme: string): Described {
  const lower = scheme.toLowerCase();
  if (lower.startsWith("postgres")) return CONNECTION_SCHEMES.postgres;
  if (lower === "mariadb" || lower === "mysql") return CONNECTION_SCHEMES.mysql;
  if (lower.startsWith("mongodb")) return CONNECTION_SCHEMES.mongodb;
  if (lower.startsWith("redis")) return CONNECTION_SCHEMES.redis;
  if (lower.startsWith("amqp")) return CONNECTION_SCHEMES.amqp;
  if (lower === "mssql" || lower === "sqlserver") return CONNECTION_SCHEMES.sqlserver;
  if (lower.endsWith("ftp")) return CONNECTION_SCHEMES.ftp;
  if (lower === "smtp" || lower === "smtps") return CONNECTION_SCHEMES.smtp;
  if (lower.startsWith("ldap")) return CONNECTION_SCHEMES.ldap;
  return CONNECTION_SCHEMES.http;
}

const GITHUB_PREFIXES: Record<string, Described> = {
  ghp: { kind: "GitHub personal access token", article: "a" },
  gho: { kind: "GitHub OAuth token", article: "a" },
  ghu: { kind: "GitHub user-to-server token", article: "a" },
  ghs: { kind: "GitHub server-to-server token", article: "a" },
  ghr: { kind: "GitHub refresh token", article: "a" },
};

/**
 * The credential kinds memdir refuses (issues 2, 10 and 22). Specific token formats first; the
 * generic `password = …` assignment last. Each pattern is linear: anchored on a literal prefix
 * or made of bounded runs over classes that exclude the following delimiter.
 */
const RULES: SecretRule[] = [
  {
    kind: "AWS access key ID",
    article: "an",
    pattern: /\b(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z0-9]{16}\b/g,
    hints: ["akia", "asia", "abia", "acca", "a3t"],
  },
  {
    kind: "AWS secret access key",
    article: "an",
    pattern:
      /aws[A-Za-z0-9_.-]{0,30}secret[A-Za-z0-9_.-]{0,30}["']?\s{0,4}[:=]\s{0,4}["']?([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+])/gi,
    hints: ["aws"],
    validate: (match) => !isDummyToken(match[1]),
  },
  {
    kind: "Google API key",
    article: "a",
    pattern: /\bAIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])/g,
    hints: ["aiza"],
  },
  {
    kind: "GCP service-account key",
    article: "a",
    pattern: /"private_key_id"\s{0,4}:\s{0,4}"([0-9a-f]{40})"/g,
    hints: ["private_key_id"],
  },
  {
    kind: "Google OAuth client secret",
    article: "a",
    pattern: /\bGOCSPX-[A-Za-z0-9_-]{28}(?![A-Za-z0-9_-])/g,
    hints: ["gocspx-"],
  },
  {
    kind: "Google OAuth access token",
    article: "a",
    pattern: /\bya29\.[0-9A-Za-z_-]{20,}/g,
    hints: ["ya29."],
  },
  {
    kind: "Azure storage account key",
    article: "an",
    pattern: /AccountKey=([A-Za-z0-9+/]{40,}={0,2})/g,
    hints: ["accountkey="],
    validate: (match) => !isDummyToken(match[1]),
  },
  {
    kind: "Azure shared access key",
    article: "an",
    pattern: /SharedAccessKey=([A-Za-z0-9+/]{30,}={0,2})/g,
    hints: ["sharedaccesskey="],
    validate: (match) => !isDummyToken(match[1]),
  },
  {
    kind: "Azure SAS token",
    article: "an",
    pattern: /[?&]sv=\d{4}-\d{2}-\d{2}[^\s"'<>]{0,300}?&sig=([A-Za-z0-9%+/=]{30,})/g,
    hints: ["sig="],
  },
  {
    kind: "Azure AD client secret",
    article: "an",
    pattern: /(?<![A-Za-z0-9_~.-])[A-Za-z0-9_~.-]{3}\dQ~[A-Za-z0-9_~.-]{31,34}(?![A-Za-z0-9_~.-])/g,
    hints: ["q~"],
  },
  {
    // 36 characters today; GitHub says they may grow, and text run on after one is still one.
    pattern: /\b(ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36,251}/g,
    hints: ["ghp_", "gho_", "ghu_", "ghs_", "ghr_"],
    describe: (match) => GITHUB_PREFIXES[match[1]],
  },
  {
    kind: "GitHub fine-grained personal access token",
    article: "a",
    pattern: /\bgithub_pat_[A-Za-z0-9_]{50,}/g,
    hints: ["github_pat_"],
  },
  {
    kind: "GitLab token",
    article: "a",
    pattern: /\bgl(?:pat|dt|rt|ptt|cbt|oas|ft|agent)-[A-Za-z0-9_-]{20,}/g,
    hints: ["gl"],
  },
  { kind: "Slack token", article: "a", pattern: /\bxox[abposre]-\d+-[A-Za-z0-9-]{10,}/g, hints: ["xox"] },
  {
    kind: "Slack app token",
    article: "a",
    pattern: /\bxapp-\d-[A-Z0-9]+-\d+-[a-f0-9]{20,}/g,
    hints: ["xapp-"],
  },
  {
    kind: "Slack webhook URL",
    article: "a",
    pattern: /https:\/\/hooks\.slack\.com\/(?:services|workflows|triggers)\/[A-Za-z0-9_/-]{20,}/g,
    hints: ["hooks.slack.com"],
  },
  {
    kind: "Discord webhook URL",
    article: "a",
    pattern: /https:\/\/(?:ptb\.|canary\.)?discord(?:app)?\.com\/api\/webhooks\/\d+\/[A-Za-z0-9_-]{50,}/g,
    hints: ["discord"],
  },
  {
    kind: "Discord bot token",
    article: "a",
    pattern: /\b[MNO][A-Za-z0-9_-]{23,25}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,38}(?![A-Za-z0-9_-])/g,
  },
  { kind: "npm access token", article: "an", pattern: /\bnpm_[A-Za-z0-9]{36}\b/g, hints: ["npm_"] },
  {
    kind: "npm auth token",
    article: "an",
    pattern: /_authToken\s{0,4}=\s{0,4}["']?([^\s"']{8,300})/g,
    hints: ["_authtoken"],
    validate: (match) => !isPlaceholderValue(match[1]),
  },
  {
    kind: "Anthropic API key",
    article: "an",
    pattern: /\bsk-ant-[A-Za-z0-9]{2,10}\d{2}-[A-Za-z0-9_-]{20,}/g,
    hints: ["sk-ant-"],
  },
  {
    kind: "OpenAI API key",
    article: "an",
    pattern: /\bsk-(?!ant-)(?:proj-|svcacct-|admin-)?([A-Za-z0-9_-]{32,})/g,
    hints: ["sk-"],
    // Real keys are random base62: lower, upper and digits. This keeps "sk-learn-…" slugs out.
    validate: (match) =>
      /[a-z]/.test(match[1]) && /[A-Z]/.test(match[1]) && /[0-9]/.test(match[1]) && !isDummyToken(match[1]),
  },
  {
    kind: "Stripe secret key",
    article: "a",
    pattern: /\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{20,}/g,
    hints: ["sk_live_", "sk_test_", "rk_live_", "rk_test_"],
  },
  { kind: "Stripe webhook secret", article: "a", pattern: /\bwhsec_[A-Za-z0-9+/]{24,}/g, hints: ["whsec_"] },
  { kind: "Twilio API key", article: "a", pattern: /\bSK[0-9a-f]{32}\b/g, hints: ["sk"] },
  {
    kind: "SendGrid API key",
    article: "a",
    pattern: /\bSG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])/g,
    hints: ["sg."],
  },
  { kind: "Hugging Face token", article: "a", pattern: /\bhf_[A-Za-z0-9]{34,}\b/g, hints: ["hf_"] },
  {
    kind: "Shopify access token",
    article: "a",
    pattern: /\bshp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}\b/g,
    hints: ["shp"],
  },
  { kind: "DigitalOcean token", article: "a", pattern: /\bdo[opr]_v1_[a-f0-9]{64}\b/g, hints: ["_v1_"] },
  {
    kind: "PyPI upload token",
    article: "a",
    pattern: /\bpypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,}/g,
    hints: ["pypi-"],
  },
  { kind: "Mailgun API key", article: "a", pattern: /\bkey-[0-9a-f]{32}\b/g, hints: ["key-"] },
  {
    kind: "Telegram bot token",
    article: "a",
    pattern: /\b\d{8,10}:AA[A-Za-z0-9_-]{33}(?![A-Za-z0-9_-])/g,
    hints: [":aa"],
  },
  { kind: "Groq API key", article: "a", pattern: /\bgsk_[A-Za-z0-9]{48,}\b/g, hints: ["gsk_"] },
  {
    kind: "age secret key",
    article: "an",
    pattern: /\bAGE-SECRET-KEY-1[0-9A-Z]{58}\b/g,
    hints: ["age-secret-key-"],
  },
  {
    kind: "private key",
    article: "a",
    pattern: /-----BEGIN[ A-Z0-9]{0,30}PRIVATE KEY(?: BLOCK)?-----/g,
    hints: ["private key"],
    validate: (match, text) => hasBase64Body(text, match.index + match[0].length),
  },
  {
    kind: "PuTTY private key",
    article: "a",
    pattern: /PuTTY-User-Key-File-\d: /g,
    hints: ["putty-user-key-file"],
  },
  {
    kind: "JSON Web Token (JWT)",
    article: "a",
    pattern: /\b(eyJ[A-Za-z0-9_-]{8,})\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{10,}/g,
    hints: ["eyj"],
    validate: isJwt,
  },
  {
    pattern:
      /\b(postgres(?:ql)?|mysql|mariadb|mongodb(?:\+srv)?|rediss?|amqps?|mssql|sqlserver|s?ftp|smtps?|ldaps?|https?):\/\/([^\s:/@"'<>]{0,128}):([^\s@/"'<>]{1,256})@[\w[.-]/gi,
    hints: ["://"],
    describe: (match) => connectionScheme(match[1]),
    // `http://host:8080@proxy` names a port, not a password: an all-digit "password" of at most
    // five digits after a host-like user is read as one.
    validate: (match) =>
      !isPlaceholderValue(match[3]) &&
      !isPlaceholderValue(match[2] || "x-user") &&
      !(/^\d{1,5}$/.test(match[3]) && /^[\w.-]+$/.test(match[2])),
  },
  {
    kind: "HTTP bearer token",
    article: "an",
    pattern: /\bBearer\s{1,4}([A-Za-z0-9._~+/-]{20,}=*)/g,
    hints: ["bearer"],
    validate: (match) => !isDummyToken(match[1]) && /\d/.test(match[1]) && /[A-Za-z]/.test(match[1]),
  },
  {
    kind: "HashiCorp Vault token",
    article: "a",
    pattern: /\bhv[sbr]\.[A-Za-z0-9_-]{24,}/g,
    hints: ["hvs.", "hvb.", "hvr."],
  },
  {
    kind: "Sentry DSN",
    article: "a",
    pattern:
      /\bhttps?:\/\/([0-9a-f]{32})(?::[0-9a-f]{32})?@[A-Za-z0-9.-]{1,200}(?::\d{1,5})?\/(?:[\w-]{1,50}\/)?\d{1,20}\b/g,
    hints: ["@"],
    validate: (match) => !isDummyToken(match[1]),
  },
  {
    kind: "kubeconfig client key",
    article: "a",
    pattern: /\bclient-key-data\s{0,4}:\s{0,4}["']?([A-Za-z0-9+/]{20,}={0,2})/g,
    hints: ["client-key-data"],
    validate: (match) => !isDummyToken(match[1]),
  },
  {
    kind: "Kubernetes secret value",
    article: "a",
    // Reported on the `value:` line (where the secret is); the `name:` line before it says what it is.
    pattern:
      /(?<=\bname\s{0,4}:\s{0,4}["']?([A-Za-z_][A-Za-z0-9_.-]{0,60})["']?[ \t]{0,20}\r?\n[ \t-]{0,20})value\s{0,4}:\s{0,4}(?:"([^"\n]{1,300})"|'([^'\n]{1,300})'|([^\s"'#]{1,300}))/g,
    hints: ["value"],
    validate: (match) =>
      keyNamesSecret(match[1]) && isNonTrivialSecretValue(match[2] ?? match[3] ?? match[4] ?? ""),
  },
  {
    kind: "Docker registry credentials",
    article: "a",
    pattern: /"auth"\s{0,4}:\s{0,4}"([A-Za-z0-9+/]{8,}={0,2})"/g,
    hints: ['"auth"'],
    validate: (match) => decodesToUserAndPassword(match[1]),
  },
  {
    kind: "npm auth token",
    article: "an",
    pattern: /(?<![A-Za-z0-9_])_(?:auth|password)\s{0,4}=\s{0,4}["']?([A-Za-z0-9+/]{8,}={0,2})/g,
    hints: ["_auth", "_password"],
    validate: (match) => !isDummyToken(match[1]) && !isPlaceholderValue(match[1]),
  },
  {
    kind: "HTTP basic-auth password",
    article: "an",
    pattern: /\bAuthorization\s{0,4}:\s{0,4}Basic\s{1,4}([A-Za-z0-9+/]{8,}={0,2})/gi,
    hints: ["basic"],
    validate: (match) => decodesToUserAndPassword(match[1]),
  },
  {
    kind: "HTTP basic-auth password",
    article: "an",
    pattern:
      /\b(?:curl|wget|http)\b[^\n]{0,300}?\s(?:-u|--user)(?:=|\s{1,4})["']?([^\s:"']{1,100}):([^\s"']{1,300})/g,
    hints: ["-u", "--user"],
    validate: (match) => isNonTrivialSecretValue(match[2]),
  },
  {
    kind: "password on a command line",
    article: "a",
    pattern:
      /(?:^|\s)--?(?:[a-z0-9]+-){0,4}(?:password|passwd|pass|token|secret|api-?key)(?:=|\s{1,4})["']?([^\s"']{1,300})/gim,
    hints: ["pass", "token", "secret", "key"],
    validate: (match) => isNonTrivialSecretValue(match[1]),
  },
  {
    kind: "password on a command line",
    article: "a",
    pattern: /\b(?:mysql(?:dump|admin|sh)?|mariadb)\b[^\n]{0,200}?\s-p([^\s"']{1,300})/g,
    hints: ["mysql", "mariadb"],
    validate: (match) => isNonTrivialSecretValue(match[1]),
  },
  {
    kind: "password on a command line",
    article: "a",
    pattern: /\bsshpass\s{1,4}-p\s{0,4}["']?([^\s"']{1,300})/g,
    hints: ["sshpass"],
    validate: (match) => isNonTrivialSecretValue(match[1]),
  },
  {
    kind: "password or secret assignment",
    article: "a",
    pattern:
      /(?<![A-Za-z0-9_.-])([A-Za-z_][A-Za-z0-9_.-]{0,60})["'*]{0,2}[ \t]{0,4}(?::=|=>|[:=])[ \t*]{0,6}(?:"([^"\n]{1,300})"|'([^'\n]{1,300})'|`([^`\n]{1,300})`|([^\s"'`,;]{1,300}))/g,
    hints: ["pass", "pwd", "secret", "token", "key", "credential"],
    generic: true,
    validate: (match) => {
      if (!keyNamesSecret(match[1])) return false;
      const value = match[2] ?? match[3] ?? match[4] ?? match[5] ?? "";
      return isNonTrivialSecretValue(value);
    },
  },
];

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
 * Throws when a text holds a credential. `where` names the text (a file, "body", a tool call).
 *
 * @throws MemdirError("secret"): `memdir: secret: <where>: looks like a <kind> (line N); memories
 *   must not hold credentials — remove it and save again`. The value is never part of the message.
 * @example
 * assertNoSecrets(body, "feedback-deploy.md");
 */
export function assertNoSecrets(text: string, where: string): void {
  const findings = findWithArticles(text);
  if (findings.length === 0) return;
  const [first, ...rest] = findings;
  const more =
    rest.length === 0 ? "" : `, and ${rest.length} more (${rest.map((f) => `line ${f.line}`).join(", ")})`;
  throw new MemdirError(
    "secret",
    `memdir: secret: ${where}: looks like ${first.article} ${first.kind} (line ${first.line})${more}; ` +
      `memories must not hold credentials — remove it and save again`,
  );
}
