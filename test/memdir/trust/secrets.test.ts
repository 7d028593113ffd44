import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { isMemdirError } from "../../../src/errors.ts";
import { isPlaceholderValue } from "../../../src/memdir/trust/secret-values.ts";
import { assertNoSecrets, findSecrets, SECRET_KINDS } from "../../../src/memdir/trust/secrets.ts";

// Token-shaped values are assembled at run time so the repository holds no scanner bait.
const githubToken = `ghp_${"aB3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF3hJ6"}`;
const awsKeyId = ["AKIA", "Z3MHQ2K7DPLX5WNB"].join("");

function base64Url(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString("base64url");
}

describe("findSecrets", () => {
  it("reports the kind and the line, never the value", () => {
    const text = [
      "---",
      "description: deploy notes",
      "type: reference",
      "---",
      `Deploy with ${githubToken}.`,
    ].join("\n");
    const findings = findSecrets(text);
    assert.deepEqual(findings, [{ kind: "GitHub personal access token", line: 5 }]);
    assert.ok(!JSON.stringify(findings).includes(githubToken));
  });

  it("finds several credentials, sorted by line", () => {
    const text = `aws_access_key_id = ${awsKeyId}\nnothing here\nDB_PASSWORD=Tr0ub4dor&3x\n${githubToken}`;
    assert.deepEqual(findSecrets(text), [
      { kind: "AWS access key ID", line: 1 },
      { kind: "password or secret assignment", line: 3 },
      { kind: "GitHub personal access token", line: 4 },
    ]);
  });

  it("reports a specific kind rather than the generic assignment on the same line", () => {
    assert.deepEqual(findSecrets(`GITHUB_TOKEN=${githubToken}`), [
      { kind: "GitHub personal access token", line: 1 },
    ]);
  });

  it("recognizes a JWT only when its header decodes to JSON with alg", () => {
    const payload = base64Url({ sub: "42", iat: 1716000000 });
    const signature = "Xq3v9LmN2pR7sT1uW5yZ8aB4cD6eF0gH";
    assert.deepEqual(findSecrets(`${base64Url({ alg: "RS256" })}.${payload}.${signature}`), [
      { kind: "JSON Web Token (JWT)", line: 1 },
    ]);
    assert.deepEqual(findSecrets(`${base64Url({ typ: "x" })}.${payload}.${signature}`), []);
  });

  it("flags a private key block only when key material follows the header", () => {
    const body = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj";
    assert.deepEqual(findSecrets(`-----BEGIN EC PRIVATE KEY-----\n${body}\n-----END EC PRIVATE KEY-----`), [
      { kind: "private key", line: 1 },
    ]);
    assert.deepEqual(findSecrets("files start with -----BEGIN PRIVATE KEY----- and then base64"), []);
  });

  it("flags the private key inside a service-account JSON with escaped newlines", () => {
    const json = `{"private_key": "-----BEGIN PRIVATE KEY-----\\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj\\n"}`;
    assert.deepEqual(findSecrets(json), [{ kind: "private key", line: 1 }]);
  });

  it("finds a password told in a sentence, as people write it to an agent", () => {
    for (const text of [
      "my DB password is S3cr3t!Passw0rd#2024",
      "staging login is admin / S3cr3t!Passw0rd#2024",
      "the password for the admin panel is Zq8vLm2Rt.",
      "Password was hunter2x9 before the reset",
      "creds: deploy:Kq83Jd92LmZx",
    ]) {
      assert.deepEqual(findSecrets(text), [{ kind: "password in a sentence", line: 1 }], text);
    }
  });

  it("lets sentences about secrets and placeholders through", () => {
    for (const text of [
      "never commit the password",
      "the API key lives in 1Password",
      "password: ask Dana, it is in the vault",
      "api_key=<your-key>",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a literal ${VAR} placeholder is what is tested
      "token: ${GITHUB_TOKEN}",
      "password = process.env.DB_PASSWORD",
      "secret=changeme",
      "API_KEY=xxxxxxxxxxxx",
      "mysql://root:****@localhost/shop",
      "sk-learn-tutorial-for-beginners-and-experts-2024",
      "aws_access_key_id = AKIAIOSFODNN7EXAMPLE",
      // Sentences about passwords whose "value" is no credential, and logins that name a path.
      "the password is in the vault",
      "the password for staging is in 1Password.",
      "the password is your-password-123",
      "The password is required for v2.3 upgrades",
      "the password was rotated on 2024-05-01",
      "the login is handled by auth/session.ts",
      "login is ci-bot/deploy-key-2024",
      "user is root:wheel on the box",
      "credentials are stored in ~/.aws/credentials",
    ]) {
      assert.deepEqual(findSecrets(text), [], text);
    }
  });

  it("stays fast on large and adversarial text (linear patterns)", () => {
    // No timing assertion: a catastrophic pattern would make this test hang instead of pass.
    const adversarial = [
      "a".repeat(300_000),
      ` password=${"b".repeat(300_000)}`,
      "eyJ".repeat(50_000),
      "postgres://".repeat(30_000),
      "x:".repeat(50_000),
      "-----BEGIN ".repeat(20_000),
      `${"Ab3/".repeat(100_000)}`,
    ].join("\n");
    assert.deepEqual(findSecrets(adversarial), [{ kind: "password or secret assignment", line: 2 }]);
  });

  it("knows at least 20 kinds", () => {
    assert.ok(SECRET_KINDS.length >= 20, `${SECRET_KINDS.length} kinds`);
  });
});

describe("credentials on command lines", () => {
  it("finds passwords and tokens given to command-line flags and URLs, a telling word inside the value included", () => {
    for (const [line, kind] of [
      ["curl -u admin:N0tAPlaceholder9 https://ci.example.com/api", "HTTP basic-auth password"],
      ["curl --user=deploy:Zq8vLm2Rt https://ci.example.com/api", "HTTP basic-auth password"],
      ["http -a admin:Zq8vLm2Rt https://ci.example.com", "HTTP basic-auth password"],
      ["mysql -h db -u root -pS4mpleR00tPw app", "password on a command line"],
      ["docker login -u bob -p Zq8vLm2Rt registry.example.com", "password on a command line"],
      ["redis-cli -a Zq8vLm2Rt ping", "password on a command line"],
      ["./deploy --password MyExamplePass42", "password on a command line"],
      ["vercel deploy --token Zq8vLm2RtKw31", "password on a command line"],
      ["tool --api-key=Kq83Jd92LmZx7", "password on a command line"],
      ["git clone https://bob:N0tAPlaceholder9@git.example.com/x.git", "URL with an embedded password"],
    ] as const) {
      assert.deepEqual(
        findSecrets(line).map((found) => found.kind),
        [kind],
        line,
      );
    }
  });

  it("lets placeholders, prompts and flags that are not passwords through", () => {
    for (const line of [
      "curl -u admin:<password> https://ci.example.com/api",
      "curl -u admin:$CI_PASSWORD https://ci.example.com/api",
      "curl -u admin:*** https://ci.example.com/api",
      "curl -u admin:xxx https://ci.example.com/api",
      "curl -u admin:changeme https://ci.example.com/api",
      "curl -u admin:your-password-123 https://ci.example.com/api",
      "./deploy --token example123",
      "mysql -u root -p app (it prompts for the password)",
      "docker login --password-stdin < token.txt",
      "docker run -p 8080:80 nginx",
      "ssh -p 2222 deploy@build-1",
      "tar -xpf archive.tar",
      "git clone https://bob:<password>@git.example.com/x.git",
    ]) {
      assert.deepEqual(findSecrets(line), [], line);
    }
  });
});

describe("isPlaceholderValue", () => {
  it("treats references, templates and filler as placeholders", () => {
    for (const value of [
      "<your-key>",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a literal ${VAR} placeholder is what is tested
      "${VAR}",
      "$VAR",
      "{{ secrets.X }}",
      "process.env.X",
      "xxx",
      "***",
      "changeme",
    ]) {
      assert.equal(isPlaceholderValue(value), true, value);
    }
    for (const value of ["config.password", "getToken()", "/run/secrets/db", "https://vault.internal"]) {
      assert.equal(isPlaceholderValue(value), true, value);
    }
  });

  it("does not treat real-looking values as placeholders", () => {
    for (const value of ["hunter2", "Tr0ub4dor&3", "S3cr3t.pass"])
      assert.equal(isPlaceholderValue(value), false, value);
  });
});

describe("assertNoSecrets", () => {
  it("passes clean text", () => {
    assert.doesNotThrow(() => assertNoSecrets("login tests must hit a real database", "body"));
  });

  it("throws MemdirError(secret) naming where, the kind and the line, without the value", () => {
    assert.throws(
      () => assertNoSecrets(`notes\n${githubToken}`, "feedback-deploy.md"),
      (error: unknown) => {
        assert.ok(isMemdirError(error, "secret"));
        assert.equal(
          (error as Error).message,
          "memdir: secret: feedback-deploy.md: looks like a GitHub personal access token (line 2); " +
            "memories must not hold credentials — remove it and save again",
        );
        return true;
      },
    );
  });

  it("uses 'an' where it reads so, and counts further findings", () => {
    assert.throws(
      () => assertNoSecrets(`${awsKeyId}\n${githubToken}`, "body"),
      (error: unknown) => {
        const message = (error as Error).message;
        assert.match(message, /looks like an AWS access key ID \(line 1\), and 1 more \(line 2\);/);
        assert.ok(!message.includes(awsKeyId) && !message.includes(githubToken));
        return true;
      },
    );
  });
});
