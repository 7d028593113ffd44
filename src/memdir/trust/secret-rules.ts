import {
  type Described,
  decodesToUserAndPassword,
  hasBase64Body,
  isCommandLineSecret,
  isDummyToken,
  isJwt,
  isNonTrivialSecretValue,
  isPlaceholderValue,
  keyNamesSecret,
  type SecretRule,
} from "./secret-values.ts";

export const CONNECTION_SCHEMES: Record<string, Described> = {
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

export const GITHUB_PREFIXES: Record<string, Described> = {
  ghp: { kind: "GitHub personal access token", article: "a" },
  gho: { kind: "GitHub OAuth token", article: "a" },
  ghu: { kind: "GitHub user-to-server token", article: "a" },
  ghs: { kind: "GitHub server-to-server token", article: "a" },
  ghr: { kind: "GitHub refresh token", article: "a" },
};

/**
 * The credential kinds memdir refuses (docs/design.md#secrets). Specific token formats first; the
 * generic `password = …` assignment last. Each pattern is linear: anchored on a literal prefix
 * or made of bounded runs over classes that exclude the following delimiter.
 */
export const RULES: SecretRule[] = [
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
      (!isPlaceholderValue(match[3]) || isCommandLineSecret(match[3])) &&
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
    validate: (match) => isCommandLineSecret(match[2]),
  },
  {
    // HTTPie: `http -a user:password …`, `https --auth=user:password …`.
    kind: "HTTP basic-auth password",
    article: "an",
    pattern:
      /\bhttps?\s[^\n]{0,300}?(?<=\s)(?:-a|--auth)(?:=|\s{1,4})["']?([^\s:"']{1,100}):([^\s"']{1,300})/g,
    hints: ["-a", "--auth"],
    validate: (match) => isCommandLineSecret(match[2]),
  },
  {
    kind: "password on a command line",
    article: "a",
    pattern:
      /(?:^|\s)--?(?:[a-z0-9]+-){0,4}(?:password|passwd|pass|token|secret|api-?key)(?:=|\s{1,4})["']?([^\s"']{1,300})/gim,
    hints: ["pass", "token", "secret", "key"],
    validate: (match) => isCommandLineSecret(match[1]),
  },
  {
    kind: "password on a command line",
    article: "a",
    pattern: /\b(?:mysql(?:dump|admin|sh)?|mariadb)\b[^\n]{0,200}?\s-p([^\s"']{1,300})/g,
    hints: ["mysql", "mariadb"],
    validate: (match) => isCommandLineSecret(match[1]),
  },
  {
    // The short password flags that take the next word: `docker login -p …`, `redis-cli -a …`.
    kind: "password on a command line",
    article: "a",
    pattern:
      /\b(?:docker\s+login|podman\s+login|redis-cli)\b[^\n]{0,200}?\s-[pa]\s{1,4}["']?([^\s"']{1,300})/g,
    hints: ["login", "redis-cli"],
    validate: (match) => isCommandLineSecret(match[1]),
  },
  {
    kind: "password on a command line",
    article: "a",
    pattern: /\bsshpass\s{1,4}-p\s{0,4}["']?([^\s"']{1,300})/g,
    hints: ["sshpass"],
    validate: (match) => isCommandLineSecret(match[1]),
  },
  {
    // A password told in a sentence, as people write it to an agent: `my DB password is …`,
    // `the wifi passphrase: …`, `the password for admin is …`. The value must pass the
    // command-line rule's check (mixed letters and digits, no placeholder shape or telling
    // word), so `the password is in the vault` or `the password is stored in 1Password` stays a note.
    kind: "password in a sentence",
    article: "a",
    pattern:
      /\b(?:password|passphrase|passcode|passwd|pwd)s?(?:\s{1,4}(?:for|of|on|to)(?:\s{1,4}[^\s]{1,40}){1,4}?)?(?:\s{1,4}(?:is|was)|\s{0,4}[=:])\s{1,4}["'`]?([^\s"'`]{1,300})/gi,
    hints: ["pass", "pwd"],
    validate: (match) => isCommandLineSecret(withoutClosingPunctuation(match[1])),
  },
  {
    // A login told as `user / password` or `user:password`: `staging login is admin / S3cr…` (a
    // slash without spaces around it is a path: `login is ci-bot/deploy-key-2024`).
    kind: "password in a sentence",
    article: "a",
    pattern:
      /\b(?:login|logins|credentials|creds|username|user|account)(?:\s{1,4}(?:is|are)|\s{0,4}[=:])\s{1,4}[^\s/:,]{1,100}(?:\s{1,3}\/\s{1,3}|:)["'`]?([^\s"'`]{1,300})/gi,
    hints: ["login", "cred", "user", "account"],
    validate: (match) => isCommandLineSecret(withoutClosingPunctuation(match[1])),
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

/** A sentence's value without the full stop or bracket that ends the sentence around it. */
function withoutClosingPunctuation(value: string): string {
  return value.replace(/[.,;:!?)\]]+$/, "");
}
