/**
 * The words developers use for one thing, in English, Chinese and Japanese: one concept per line,
 * `concept: term, term, …` (docs/design.md#term-bridges, read by term-bridges.ts). A prompt that
 * says one term of a line finds a memory that says another, at `bridgeWeight` of the weight the
 * memory's word would have had if typed, and `--explain` names the pair (`related:
 * install≈pnpm`).
 *
 * Rules for adding a line: every term means the concept in a software project (so a well-known
 * tool of the kind counts: pnpm *is* a package manager); no term of one letter or one Han
 * character (they match too much); a phrase matches only where all its words occur (English) or
 * all its character pairs (Chinese, Japanese); one form of an English word is enough (the stemmer
 * meets `tests`, `testing` at `test`). A term in two lines bridges to both.
 */
export const TERM_BRIDGES = `
# building, testing, shipping
ci: ci, continuous integration, build, pipeline, jenkins, buildkite, github actions, gitlab ci, circleci, travis, 构建, 流水线, 持续集成, 集成流水线, ビルド, パイプライン, 継続的インテグレーション
test: test, unit test, spec, pytest, jest, vitest, mocha, 测试, 单测, 单元测试, 测试用例, テスト, 単体テスト
integration test: integration test, e2e, end to end, 集成测试, 端到端, 結合テスト
coverage: coverage, 覆盖率, カバレッジ
mock: mock, stub, fake, 模拟, モック
release: release, deploy, ship, rollout, go live, publish, 发布, 上线, 发版, 部署, リリース, デプロイ
production: production, prod, 生产, 生产环境, 线上, 正式环境, 本番, 本番環境
staging: staging, test environment, preview environment, preprod, pre-production, sandbox, qa environment, 测试环境, 预发, 预发布, 预发环境, ステージング, テスト環境, 検証環境
freeze: freeze, code freeze, 冻结, 封版, 凍結
rollback: rollback, revert, 回滚, ロールバック
version: version, 版本, バージョン

# code and its rules
dependency: dependency, install, package, package manager, third-party library, lockfile, npm, pnpm, yarn, pip, poetry, conda, cargo, 依赖, 依赖包, 安装, 包管理, 包管理器, 第三方库, 依存, 依存関係, インストール, パッケージ, ライブラリ
format: format, formatter, lint, linter, code style, style guide, prettier, eslint, biome, black, ruff, gofmt, 格式化, 代码风格, 代码规范, 风格, フォーマット, コードスタイル, リント
error handling: error, exception, panic, 错误, 异常, エラー, 例外
commit: commit, commit message, 提交, 提交信息, コミット
review: pull request, merge request, code review, 合并请求, 代码评审, 评审, 审核, プルリクエスト, レビュー
branch: branch, 分支, ブランチ
config: config, configuration, settings, 配置, 设置, 設定, コンフィグ
docs: documentation, docs, readme, 文档, ドキュメント
api: api, endpoint, interface, 接口, エンドポイント, インターフェース
request: request, http, http client, 请求, リクエスト
timeout: timeout, deadline, 超时, タイムアウト
retry: retry, backoff, 重试, リトライ, 再試行
upgrade: upgrade, bump, 升级, 更新, アップグレード, アップデート

# data
database: database, db, postgres, postgresql, mysql, sqlite, mongodb, 数据库, データベース
schema change: schema, migration, migrate, column, alter table, 表结构, 字段, 迁移, スキーマ, マイグレーション, カラム
warehouse: data warehouse, warehouse, clickhouse, bigquery, snowflake, 数仓, 数据仓库, データウェアハウス
cache: cache, redis, 缓存, キャッシュ
queue: queue, message queue, kafka, rabbitmq, 队列, 消息队列, キュー
job: background job, cron job, scheduled job, scheduled task, worker, cron, scheduler, 任务, 定时任务, 调度, ジョブ, タスク, スケジューラ
storage: storage, bucket, s3, object storage, 存储, 对象存储, ストレージ
time zone: time zone, timezone, tz, utc, gmt, local time, daylight saving, 时区, 本地时间, 夏令时, タイムゾーン, ローカルタイム, 夏時間
repository: repository, repo, monorepo, 代码仓库, 代码库, リポジトリ

# secrets, people's data, rules
secret: secret, api key, credential, token, password, vault, kms, 密钥, 秘钥, 凭证, 凭据, 令牌, 密码, シークレット, 認証情報, 秘密鍵, パスワード, トークン
auth: auth, authentication, login, sign in, oauth, 登录, 认证, 鉴权, ログイン, 認証
privacy: privacy, pii, gdpr, personal data, redact, masking, anonymize, 隐私, 个人信息, 脱敏, 個人情報, マスキング
compliance: compliance, audit, regulation, 合规, 审计, 法规, コンプライアンス, 監査
payment: payment, checkout, billing, 支付, 付款, 结算, 決済, 支払い
card: card number, credit card, 卡号, 银行卡, 信用卡, カード番号, クレジットカード

# running it
monitoring: dashboard, monitoring, metrics, grafana, datadog, 看板, 监控, 仪表盘, 指标, ダッシュボード, 監視, メトリクス
alert: alert, pagerduty, 告警, 报警, アラート
slow: slow, latency, 延迟, 性能, 遅い, レイテンシ, パフォーマンス
incident: incident, outage, on-call, oncall, runbook, postmortem, 故障, 事故, 值班, 运维手册, 障害, インシデント, 当番, 手順書
failure: fail, failure, 失败, 挂了, 报错, 崩溃, 失敗, クラッシュ
log: log, logger, 日志, ログ
container: container, docker, kubernetes, k8s, 容器, コンテナ
environment variable: env, environment variable, dotenv, 环境变量, 環境変数
`;
