// The shared table of credentials every save path must refuse (docs/design.md#secrets). The values
// are generated at run time from a fixed seed, so no token-shaped string sits in the repository
// (and no secret scanner flags it), yet every run sees the same, realistic-looking values.
//
//   for (const c of SECRET_CASES) { …save c.text…; expect refusal naming c.kind, without c.value }

import { mulberry32 } from "../helpers/random.ts";

/** One credential: the kind memdir must name, the text holding it, and the value never to echo. */
export interface SecretCase {
  kind: string;
  /** A line as someone might paste it into a memory. */
  text: string;
  /** The secret part; an error message must never contain it. */
  value: string;
}

const UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
const LOWER = "abcdefghijklmnopqrstuvwxyz";
const DIGITS = "0123456789";
const ALNUM = UPPER + LOWER + DIGITS;
const HEX = "0123456789abcdef";

const next = mulberry32(20240611);
/** Deterministic characters from `alphabet` (mulberry32: reproducible, not secure — on purpose). */
function random(alphabet: string, length: number): string {
  let out = "";
  for (let i = 0; i < length; i++) out += alphabet[next() % alphabet.length];
  return out;
}

/** Random text with at least one upper, lower and digit, like real base62 keys. */
function mixed(length: number, alphabet = ALNUM): string {
  return `${random(UPPER, 1)}${random(LOWER, 1)}${random(DIGITS, 1)}${random(alphabet, length - 3)}`;
}

function base64Url(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString("base64url");
}

function privateKeyBlock(label: string): string {
  const lines = Array.from({ length: 4 }, () => random(`${ALNUM}+/`, 64));
  return `-----BEGIN ${label}-----\n${lines.join("\n")}\n-----END ${label}-----`;
}

function build(): SecretCase[] {
  const cases: SecretCase[] = [];
  const add = (kind: string, value: string, text: (value: string) => string) =>
    cases.push({ kind, value, text: text(value) });

  add("AWS access key ID", `AKIA${random(UPPER + DIGITS, 16)}`, (v) => `aws_access_key_id = ${v}`);
  add("AWS secret access key", random(`${ALNUM}/+`, 40), (v) => `aws_secret_access_key = ${v}`);
  add("Google API key", `AIza${mixed(35, `${ALNUM}_-`)}`, (v) => `Maps key for staging: ${v}`);
  add(
    "GCP service-account key",
    random(HEX, 40),
    (v) => `{"type": "service_account", "private_key_id": "${v}"}`,
  );
  add("Google OAuth client secret", `GOCSPX-${mixed(28)}`, (v) => `OAuth client secret is ${v}`);
  add(
    "Azure storage account key",
    `${random(`${ALNUM}+/`, 86)}==`,
    (v) =>
      `DefaultEndpointsProtocol=https;AccountName=shopdata;AccountKey=${v};EndpointSuffix=core.windows.net`,
  );
  add(
    "Azure AD client secret",
    `${random(ALNUM, 3)}8Q~${mixed(34, `${ALNUM}_~.-`)}`,
    (v) => `app registration: ${v}`,
  );
  add("GitHub personal access token", `ghp_${mixed(36)}`, (v) => `deploy with ${v}`);
  add("GitHub OAuth token", `gho_${mixed(36)}`, (v) => `the CI bot authenticates as ${v}`);
  add(
    "GitHub fine-grained personal access token",
    `github_pat_${mixed(22)}_${mixed(59)}`,
    (v) => `read-only token ${v}`,
  );
  add("GitLab token", `glpat-${mixed(20, `${ALNUM}_-`)}`, (v) => `gitlab: ${v}`);
  add(
    "Slack token",
    `xoxb-${random(DIGITS, 12)}-${random(DIGITS, 13)}-${mixed(24)}`,
    (v) => `slack bot ${v}`,
  );
  add(
    "Slack webhook URL",
    `https://hooks.slack.com/services/T${random(UPPER + DIGITS, 8)}/B${random(UPPER + DIGITS, 8)}/${mixed(24)}`,
    (v) => `alerts go to ${v}`,
  );
  add("npm access token", `npm_${mixed(36)}`, (v) => `publish token ${v}`);
  add("OpenAI API key", `sk-proj-${mixed(48, `${ALNUM}_-`)}`, (v) => `OPENAI_API_KEY=${v}`);
  add("Anthropic API key", `sk-ant-api03-${mixed(93, `${ALNUM}_-`)}AA`, (v) => `use ${v} for the evals`);
  add("Stripe secret key", `sk_live_${mixed(24)}`, (v) => `stripe live key ${v}`);
  add("Twilio API key", `SK${random(HEX, 32)}`, (v) => `twilio api key sid ${v}`);
  add("SendGrid API key", `SG.${mixed(22, `${ALNUM}_-`)}.${mixed(43, `${ALNUM}_-`)}`, (v) => `mail via ${v}`);
  add(
    "Discord bot token",
    `M${mixed(23, `${ALNUM}`)}.${mixed(6)}.${mixed(27, `${ALNUM}_-`)}`,
    (v) => `discord bot token ${v}`,
  );
  add("Hugging Face token", `hf_${mixed(34)}`, (v) => `hub token ${v}`);
  add("Telegram bot token", `${random(DIGITS, 10)}:AA${mixed(33, `${ALNUM}_-`)}`, (v) => `telegram ${v}`);
  add("private key", privateKeyBlock("RSA PRIVATE KEY"), (v) => `server key:\n${v}`);
  add("private key", privateKeyBlock("OPENSSH PRIVATE KEY"), (v) => v);
  add(
    "JSON Web Token (JWT)",
    `${base64Url({ alg: "HS256", typ: "JWT" })}.${base64Url({ sub: "1234567890", name: "Ops", iat: 1716000000 })}.${mixed(43, `${ALNUM}_-`)}`,
    (v) => `session cookie: ${v}`,
  );
  add("password or secret assignment", `Tr0ub4dor&${random(ALNUM, 6)}`, (v) => `DB_PASSWORD=${v}`);
  add("password or secret assignment", mixed(20), (v) => `"client_secret": "${v}"`);
  add(
    "PostgreSQL connection string with a password",
    `S3cr3t${random(ALNUM, 8)}`,
    (v) => `DATABASE_URL=postgres://shop:${v}@db.internal:5432/shop`,
  );
  add(
    "MongoDB connection string with a password",
    `m0ngo${random(ALNUM, 10)}`,
    (v) => `mongodb+srv://app:${v}@cluster0.example.net/shop`,
  );
  add(
    "MySQL connection string with a password",
    `My${random(ALNUM, 10)}9`,
    (v) => `mysql://root:${v}@127.0.0.1/shop`,
  );
  add(
    "Redis connection string with a password",
    `r3d${random(ALNUM, 12)}`,
    (v) => `cache: redis://:${v}@cache:6379/0`,
  );
  add(
    "AMQP (RabbitMQ) connection string with a password",
    `Rb${random(ALNUM, 12)}7`,
    (v) => `queue amqp://worker:${v}@mq.internal:5672/`,
  );
  add(
    "HTTP bearer token",
    mixed(40, `${ALNUM}._-`),
    (v) => `curl -H "Authorization: Bearer ${v}" https://api.internal`,
  );
  // Credentials the scanner used to let through.
  add("password or secret assignment", `Pg${mixed(12)}`, (v) => `env: DB_PASSWORD=${v}`);
  add("password or secret assignment", mixed(24), (v) => `note:API_TOKEN=${v}`);
  add("password or secret assignment", mixed(32), (v) => `https://h/x?access_token=${v}`);
  add("password or secret assignment", `Pg${mixed(12)}`, (v) => `PGPASSWORD=${v} psql -h db.internal shop`);
  add("password on a command line", `Pw${mixed(12)}`, (v) => `./deploy --password=${v}`);
  add("password on a command line", `My${mixed(12)}`, (v) => `mysql -u root -p${v} shop`);
  add("password on a command line", `Ss${mixed(12)}`, (v) => `sshpass -p ${v} ssh deploy@build-1`);
  add(
    "Kubernetes secret value",
    `Kv${mixed(16)}`,
    (v) => `env:\n  - name: DB_PASSWORD\n    value: ${v}\n  - name: LOG_LEVEL\n    value: info`,
  );
  add(
    "kubeconfig client key",
    Buffer.from(privateKeyBlock("RSA PRIVATE KEY")).toString("base64"),
    (v) => `users:\n- name: admin\n  user:\n    client-key-data: ${v}`,
  );
  add(
    "npm auth token",
    Buffer.from(`ci-bot:${mixed(16)}`).toString("base64"),
    (v) => `//registry.internal/:_auth=${v}`,
  );
  add("HTTP basic-auth password", `Cu${mixed(12)}`, (v) => `curl -u admin:${v} https://api.internal/v1`);
  add(
    "HTTP basic-auth password",
    Buffer.from(`admin:${mixed(14)}`).toString("base64"),
    (v) => `curl -H "Authorization: Basic ${v}" https://api.internal`,
  );
  add("HashiCorp Vault token", `hvs.${mixed(90, `${ALNUM}_-`)}`, (v) => `VAULT_TOKEN ${v}`);
  add(
    "Sentry DSN",
    random(HEX, 32),
    (v) => `SENTRY_DSN: https://${v}@o${random(DIGITS, 6)}.ingest.sentry.io/${random(DIGITS, 7)}`,
  );
  add(
    "Docker registry credentials",
    Buffer.from(`bot:${mixed(20)}`).toString("base64"),
    (v) => `{"auths": {"ghcr.io": {"auth": "${v}"}}}`,
  );
  add("GitHub personal access token", `ghp_${mixed(40)}`, (v) => `token ${v}_suffix`);
  return cases;
}

/**
 * Credentials used as a memory's file name: the name also sits in `MEMORY.md`, so
 * it is scanned like the text.
 */
export const SECRET_FILE_NAMES: readonly SecretCase[] = [
  { kind: "GitHub personal access token", value: `ghp_${mixed(36)}` },
  { kind: "Slack token", value: `xoxb-${random(DIGITS, 12)}-${random(DIGITS, 13)}-${mixed(24)}` },
].map((c) => ({ ...c, text: `reference-${c.value}.md` }));

/** ≥ 20 kinds of credentials, each as one realistic line. */
export const SECRET_CASES: readonly SecretCase[] = build();

/** Sentences and placeholders that talk about secrets without holding one; must all pass. */
export const NOT_SECRETS: readonly string[] = [
  "never commit the password",
  "the API key lives in 1Password",
  "Rotate the Stripe secret key every quarter; ask Dana for access.",
  "api_key=<your-key>",
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a literal ${VAR} placeholder is what is tested
  "OPENAI_API_KEY=${OPENAI_API_KEY}",
  "password: $DB_PASSWORD",
  "const apiKey = process.env.OPENAI_API_KEY",
  "token = os.environ['GITHUB_TOKEN']",
  "password = config.database.password",
  "secret: {{ secrets.DEPLOY_KEY }}",
  "password=changeme",
  "password: xxxxxxxx",
  "api_key: ********",
  "postgres://user:password@localhost/db",
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a literal ${VAR} placeholder is what is tested
  "postgres://user:${PGPASSWORD}@localhost/db",
  "aws_access_key_id = AKIAIOSFODNN7EXAMPLE",
  "password_policy: min-length-12",
  "max_tokens = 4096",
  "secret: the launch date moves to Friday",
  "token: expires after one hour",
  "pip install sk-learn-tutorial-for-beginners-and-experts-2024",
  "the header looks like -----BEGIN PRIVATE KEY----- followed by base64",
  "Use `Authorization: Bearer <token>` for the internal API",
  "passwordHash = await bcrypt.hash(password, 12)",
  "https://docs.example.com/guide?page=2#password-reset",
  "integration tests of the login module must not mock the database",
  // Harmless lines the scanner used to refuse.
  "password: op://vault/db/password",
  "password=pw_from_vault",
  "http://host:8080@proxy",
  "mysql -u root -p shop (it prompts for the password)",
  "run ./deploy --password-file=/run/secrets/db",
  "- name: LOG_LEVEL\n  value: debug",
  "sentry is at https://sentry.internal/organizations/shop/issues/",
];
