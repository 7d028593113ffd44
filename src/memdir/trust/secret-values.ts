// What makes a matched value a credential rather than a placeholder, a dummy or a code reference:
// the checks the rules of secret-rules.ts share (docs/design.md#secrets).

export interface Described {
  kind: string;
  /** "a" or "an", so messages read naturally ("an AWS access key ID"). */
  article: "a" | "an";
}

export interface SecretRule extends Partial<Described> {
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
export function isDummyToken(token: string): boolean {
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
  return isPlaceholderShape(trimmed) || hasTellingWord(trimmed);
}

/** A placeholder by its form (a reference, a template, filler, code, a path), whatever its words. */
function isPlaceholderShape(trimmed: string): boolean {
  if (trimmed.length === 0) return true;
  if (/^[$%<{[(!&@#]/.test(trimmed)) return true; // ${VAR}, $VAR, %VAR%, <…>, {{…}}, [..], !vault, &anchor
  if (/\$\{|\{\{|process\.env|os\.environ|getenv|import\.meta\.env|secrets\./i.test(trimmed)) return true;
  if (/^(?:[xX*.\-_#•]+|0+)$/.test(trimmed)) return true;
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

/** A word that documentation puts in a made-up value: `example`, `your`, `changeme`, `placeholder`. */
function hasTellingWord(trimmed: string): boolean {
  if (DUMMY_WORDS.test(trimmed) || /replace|insert|fixme|change_me|here$/i.test(trimmed)) return true;
  return PLACEHOLDER_WORDS.has(trimmed.toLowerCase());
}

const TELLING_WORDS = new RegExp(
  `${DUMMY_WORDS.source}|replace|insert|fixme|change_me|here|password|passwd|secret|token`,
  "gi",
);

/**
 * A value given to a password or token flag on a command line (`curl -u admin:…`, `mysql -p…`,
 * `--token …`), or as the password of a URL, that is a credential. Placeholders by form (`<password>`, `$PASSWORD`, `***`,
 * `xxx`) and made of telling words (`changeme`, `your-password`, `example123`) are not; but a
 * telling word inside an otherwise real value does not make it one: `N0tAPlaceholder9` still
 * mixes letters and digits once `Placeholder` is taken out (test/memdir/secrets.test.ts).
 */
export function isCommandLineSecret(value: string): boolean {
  const trimmed = value.trim();
  if (isPlaceholderShape(trimmed)) return false;
  if (!hasTellingWord(trimmed)) return isNonTrivialSecretValue(trimmed);
  const rest = trimmed.replace(TELLING_WORDS, "").replace(/[^A-Za-z0-9]/g, "");
  return rest.length >= 4 && /[A-Za-z]/.test(rest) && /[0-9]/.test(rest);
}

/** A value worth calling a secret: not a placeholder, long enough, and not a plain word. */
export function isNonTrivialSecretValue(value: string): boolean {
  if (isPlaceholderValue(value)) return false;
  if (value.length < 6) return false;
  const classes = [/[a-z]/, /[A-Z]/, /[0-9]/, /[^A-Za-z0-9]/].filter((re) => re.test(value)).length;
  return classes >= 2 || value.length >= 16;
}

function base64UrlDecode(part: string): string {
  return Buffer.from(part.replace(/-/g, "+").replace(/_/g, "/"), "base64").toString("utf8");
}

export function isJwt(match: RegExpExecArray): boolean {
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

export function keyNamesSecret(key: string): boolean {
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
export function decodesToUserAndPassword(encoded: string): boolean {
  const decoded = Buffer.from(encoded, "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  if (colon <= 0 || /[\u0000-\u001f]/.test(decoded)) return false;
  return isNonTrivialSecretValue(decoded.slice(colon + 1)) || decoded.length - colon > 12;
}

export function hasBase64Body(text: string, from: number): boolean {
  return /[A-Za-z0-9+/]{40}/.test(text.slice(from, from + 500));
}
