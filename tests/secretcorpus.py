"""Fake secrets in the shape of real ones, generated at test time, and the text they hide in.

Nothing here is a live credential, and none is committed verbatim: each value is drawn from a seeded
RNG in the exact format of its service (prefix, alphabet, length, checksum-free), so that a secret
scanner run over this repository has nothing to report, while reasonlessons' privacy filter sees
what it would see in a real session log.
"""

# ruff: noqa: E501  (one secret format, or one kind of log line, per line reads best)
from __future__ import annotations

import base64
import json
import random
import re
import string
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tests.paths import PACKAGE

ALNUM = string.ascii_letters + string.digits
UPPER_DIGITS = string.ascii_uppercase + string.digits
HEX = "0123456789abcdef"
B64 = ALNUM + "+/"
B64URL = ALNUM + "-_"


@dataclass(frozen=True)
class Secret:
    """One fake secret: its format, the value(s) that must never be written, and a line holding it."""

    kind: str
    values: tuple[str, ...]  # every substring that must not survive (a key block's body lines)
    context: str  # the secret as it shows up in a session: an export, a header, a config line


def _pick(rng: random.Random, alphabet: str, n: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


def _jwt(rng: random.Random) -> str:
    def part(obj: dict[str, object]) -> str:
        return base64.urlsafe_b64encode(json.dumps(obj).encode()).decode().rstrip("=")

    header = part({"alg": "HS256", "typ": "JWT"})
    payload = part({"sub": _pick(rng, string.digits, 10), "name": "svc", "iat": rng.randrange(10**9)})
    return f"{header}.{payload}.{_pick(rng, B64URL, 43)}"


def _key_block(rng: random.Random, label: str, lines: int = 6) -> tuple[str, tuple[str, ...]]:
    body = [_pick(rng, B64, 64) for _ in range(lines)]
    block = f"-----BEGIN {label}-----\n" + "\n".join(body) + f"\n-----END {label}-----"
    return block, tuple(body)


def _password(rng: random.Random) -> str:
    # A strong password: mixed classes, as a password manager would generate it.
    return _pick(rng, string.ascii_lowercase, 4) + _pick(rng, string.digits, 3) + _pick(rng, ALNUM, 9)


Maker = Callable[[random.Random], Secret]


def _simple(kind: str, make: Callable[[random.Random], str], context: str) -> Maker:
    def build(rng: random.Random) -> Secret:
        value = make(rng)
        return Secret(kind, (value,), context.format(s=value))

    return build


def _block(kind: str, label: str, context: str = "{s}") -> Maker:
    def build(rng: random.Random) -> Secret:
        block, body = _key_block(rng, label)
        return Secret(kind, body, context.format(s=block))

    return build


def _gcp_json(rng: random.Random) -> Secret:
    block, body = _key_block(rng, "PRIVATE KEY")
    key_id = _pick(rng, HEX, 40)
    doc = {
        "type": "service_account",
        "project_id": "demo-project",
        "private_key_id": key_id,
        "private_key": block + "\n",
        "client_email": "svc@demo-project.iam.gserviceaccount.com",
    }
    return Secret("gcp-service-account-json", (*body, key_id), json.dumps(doc))


def _basic_header(rng: random.Random) -> Secret:
    password = _password(rng)
    token = base64.b64encode(f"deploy:{password}".encode()).decode()
    return Secret(
        "basic-auth-header", (token,), f"curl -H 'Authorization: Basic {token}' https://ci.internal/api"
    )


def _url_password(rng: random.Random) -> Secret:
    password = _password(rng)
    return Secret("url-password", (password,), f"DATABASE_URL=postgres://app:{password}@db.internal:5432/app")


MAKERS: tuple[Maker, ...] = (
    _simple("aws-access-key-id", lambda r: "AKIA" + _pick(r, UPPER_DIGITS, 16), "export AWS_ACCESS_KEY_ID={s}"),
    _simple("aws-sts-key-id", lambda r: "ASIA" + _pick(r, UPPER_DIGITS, 16), "aws_access_key_id={s}"),
    _simple("aws-secret-key", lambda r: _pick(r, B64, 40), "aws_secret_access_key = {s}"),
    _simple("github-classic-pat", lambda r: "ghp_" + _pick(r, ALNUM, 36), "export GH_TOKEN={s}"),
    _simple("github-oauth", lambda r: "gho_" + _pick(r, ALNUM, 36), "git clone https://x-access-token:{s}@github.com/acme/app"),
    _simple("github-app", lambda r: "ghs_" + _pick(r, ALNUM, 36), "installation token {s} expires in 1h"),
    _simple("github-fine-grained", lambda r: "github_pat_" + _pick(r, ALNUM, 22) + "_" + _pick(r, ALNUM, 59), "gh auth login --with-token <<< {s}"),
    _simple("gitlab-pat", lambda r: "glpat-" + _pick(r, B64URL.replace("-", ""), 20), "git push https://oauth2:{s}@gitlab.com/acme/app.git"),
    _simple("gitlab-runner", lambda r: "glrt-" + _pick(r, ALNUM, 20), "gitlab-runner register --token {s}"),
    _simple("slack-bot-token", lambda r: f"xoxb-{_pick(r, string.digits, 12)}-{_pick(r, string.digits, 13)}-{_pick(r, ALNUM, 24)}", "SLACK_BOT={s}"),
    _simple("slack-user-token", lambda r: f"xoxp-{_pick(r, string.digits, 12)}-{_pick(r, string.digits, 12)}-{_pick(r, string.digits, 13)}-{_pick(r, HEX, 32)}", "slack user token: {s}"),
    _simple("slack-webhook", lambda r: f"https://hooks.slack.com/services/T{_pick(r, UPPER_DIGITS, 8)}/B{_pick(r, UPPER_DIGITS, 8)}/{_pick(r, ALNUM, 24)}", "curl -X POST {s} -d @msg.json"),
    _simple("openai-legacy", lambda r: "sk-" + _pick(r, ALNUM, 20) + "T3BlbkFJ" + _pick(r, ALNUM, 20), "openai.api_key = {s}"),
    _simple("openai-project", lambda r: "sk-proj-" + _pick(r, B64URL, 120), "export OPENAI_API_KEY={s}"),
    _simple("anthropic", lambda r: "sk-ant-api03-" + _pick(r, B64URL, 93) + "AA", "x-api-key: {s}"),
    _simple("deepseek", lambda r: "sk-" + _pick(r, HEX, 32), "DEEPSEEK_API_KEY={s} reasonix run"),
    _simple("openrouter", lambda r: "sk-or-v1-" + _pick(r, HEX, 64), "using openrouter key {s}"),
    _simple("google-api-key", lambda r: "AIza" + _pick(r, B64URL, 35), "https://maps.googleapis.com/maps/api/geocode/json?key={s}"),
    _simple("stripe-secret", lambda r: "sk_live_" + _pick(r, ALNUM, 24), "stripe.api_key = '{s}'"),
    _simple("stripe-restricted", lambda r: "rk_live_" + _pick(r, ALNUM, 24), "STRIPE_RK {s}"),
    _simple("npm-token", lambda r: "npm_" + _pick(r, ALNUM, 36), "//registry.npmjs.org/:_authToken={s}"),
    _simple("pypi-token", lambda r: "pypi-AgEIcHlwaS5vcmc" + _pick(r, B64URL, 70), "twine upload -p {s} dist/*"),
    _simple("huggingface", lambda r: "hf_" + _pick(r, ALNUM, 34), "huggingface-cli login --token {s}"),
    _simple("jwt", _jwt, "Cookie: session={s}"),
    _block("rsa-private-key", "RSA PRIVATE KEY"),
    _block("openssh-private-key", "OPENSSH PRIVATE KEY"),
    _block("ec-private-key", "EC PRIVATE KEY", "cat deploy.pem\n{s}"),
    _gcp_json,
    _url_password,
    _simple("env-db-password", _password, "DB_PASSWORD={s}"),
    _simple("env-secret-key", lambda r: _pick(r, B64URL, 50), "DJANGO_SECRET_KEY='{s}'"),
    _simple("bearer-token", lambda r: _pick(r, B64URL, 40), 'curl -H "Authorization: Bearer {s}" https://api.internal/v1/me'),
    _basic_header,
    _simple("sendgrid", lambda r: "SG." + _pick(r, B64URL, 22) + "." + _pick(r, B64URL, 43), "SENDGRID={s}"),
    _simple("twilio", lambda r: "SK" + _pick(r, HEX, 32), "twilio api key {s}"),
    _simple("mailchimp", lambda r: _pick(r, HEX, 32) + "-us12", "mailchimp key {s}"),
    _simple("telegram-bot", lambda r: f"{r.randrange(10**8, 10**9)}:AA{_pick(r, B64URL, 33)}", "bot token {s}"),
    _simple("discord-bot", lambda r: "M" + _pick(r, ALNUM, 23) + "." + _pick(r, B64URL, 6) + "." + _pick(r, B64URL, 27), "discord {s}"),
    _simple("azure-storage", lambda r: _pick(r, B64, 86) + "==", "DefaultEndpointsProtocol=https;AccountName=acme;AccountKey={s};EndpointSuffix=core.windows.net"),
    _simple("square-oauth", lambda r: "sq0csp-" + _pick(r, B64URL, 43), "square secret {s}"),
    _simple("vault-token", lambda r: "hvs." + _pick(r, B64URL, 90), "VAULT_TOKEN {s}"),
    _simple("digitalocean", lambda r: "dop_v1_" + _pick(r, HEX, 64), "doctl auth init -t {s}"),
    _simple("groq", lambda r: "gsk_" + _pick(r, ALNUM, 52), "groq key {s}"),
    _simple("databricks", lambda r: "dapi" + _pick(r, HEX, 32), "databricks configure --token {s}"),
    _simple("age-secret-key", lambda r: "AGE-SECRET-KEY-1" + _pick(r, UPPER_DIGITS, 58), "# {s}"),
    _simple("shopify", lambda r: "shpat_" + _pick(r, HEX, 32), "X-Shopify-Access-Token: {s}"),
    _simple("netrc-password", _password, "machine api.internal login deploy password {s}"),
    _simple("yaml-password", _password, 'password: "{s}"'),
    _simple("python-api-key", lambda r: _pick(r, ALNUM, 32), 'API_KEY = "{s}"'),
    _simple("artifactory", lambda r: "AKCp8" + _pick(r, ALNUM, 68), "ARTIFACTORY_API_KEY: {s}"),
)  # fmt: skip


def corpus(seed: int = 7) -> list[Secret]:
    """One fake secret of every format, the same for a given seed."""
    rng = random.Random(seed)
    return [make(rng) for make in MAKERS]


# Modules that spell secret formats out on purpose (patterns, examples in docstrings).
_PATTERN_MODULES = {"redact.py", "secretscan.py", "trust.py", "formats.py", "positions.py", "textview.py"}


def ordinary_lines(seed: int = 11) -> list[str]:
    """Ordinary code and logs, no secret in them: this package's own source, then generated tool
    output dense in the strings secret scanners trip over (hashes, UUIDs, digests, base64 images)."""
    rng = random.Random(seed)
    lines = [
        line
        for path in sorted(PACKAGE.rglob("*.py"))
        if path.name not in _PATTERN_MODULES
        for line in path.read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]
    for _ in range(150):
        lines.extend(make(rng) for make in _ORDINARY)
    return lines


def _sha(rng: random.Random, n: int = 40) -> str:
    return _pick(rng, HEX, n)


def _uuid(rng: random.Random) -> str:
    h = _sha(rng, 32)
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-a{h[17:20]}-{h[20:]}"


def _b64(rng: random.Random, n: int) -> str:
    return base64.b64encode(rng.randbytes(n)).decode()


_ORDINARY: tuple[Callable[[random.Random], str], ...] = (
    lambda r: f"commit {_sha(r)}",
    lambda r: f"{_sha(r, 7)} Fix the parser for empty input (#{r.randrange(1, 999)})",
    lambda r: f"{_sha(r, 64)}  dist/app-{r.randrange(9)}.{r.randrange(20)}.{r.randrange(9)}.tar.gz",
    lambda r: f'  "integrity": "sha512-{_b64(r, 64)}",',
    lambda r: f"  --hash=sha256:{_sha(r, 64)} \\",
    lambda r: f"docker pull ghcr.io/acme/app@sha256:{_sha(r, 64)}",
    lambda r: f'{{"id": "{_uuid(r)}", "session": "{_uuid(r)}", "ok": true}}',
    lambda r: f"request_id={_uuid(r)} status=200 duration_ms={r.randrange(900)}",
    lambda r: f'<img src="data:image/png;base64,{_b64(r, r.randrange(60, 600))}" alt="chart">',
    lambda r: f"background: url(data:image/svg+xml;base64,{_b64(r, 120)});",
    lambda r: f"xxh3:{_sha(r, 16)}  package.json#scripts.test",
    lambda r: f"src/queue.ts({r.randrange(1, 300)},{r.randrange(1, 80)}): error TS2345: Argument of type 'string' is not assignable to parameter of type 'number'.",
    lambda r: f" ✓ tests/queue.test.ts ({r.randrange(1, 40)} tests) {r.randrange(1, 90)}ms",
    lambda r: f"FAILED tests/test_parser.py::test_case_{r.randrange(99)} - AssertionError: assert {r.randrange(9)} == {r.randrange(9)}",
    lambda r: f"added {r.randrange(1, 900)} packages, and audited {r.randrange(900, 2000)} packages in {r.randrange(1, 30)}s",
    lambda r: f"2026-05-0{r.randrange(1, 9)}T1{r.randrange(9)}:0{r.randrange(9)}:3{r.randrange(9)}.{r.randrange(999):03d}Z INFO  server listening on http://127.0.0.1:{r.randrange(3000, 9000)}",
    lambda r: f"GET https://api.github.com/repos/acme/app/commits/{_sha(r)} 200",
    lambda r: f"ETag: W/\"{_sha(r, 32)}\"",
    lambda r: f"Set-Cookie: _ga=GA1.1.{r.randrange(10**9)}.{r.randrange(10**9)}; Path=/",
    lambda r: f"    at Object.<anonymous> (/app/node_modules/.pnpm/vitest@3.2.4/node_modules/vitest/dist/chunk-{_sha(r, 8)}.js:{r.randrange(999)}:{r.randrange(99)})",
    lambda r: f"const SESSION_TTL_SECONDS = {r.randrange(60, 86400)}; // token lifetime",
    lambda r: f"password_min_length: {r.randrange(8, 20)}",
    lambda r: f"token_count = len(tokens) + {r.randrange(9)}",
    lambda r: f"objectId: {_sha(r, 24)}",
    lambda r: f"  resolved \"https://registry.npmjs.org/left-pad/-/left-pad-1.{r.randrange(9)}.0.tgz#{_sha(r)}\"",
    lambda r: f"Merge: {_sha(r, 7)} {_sha(r, 7)}",
    lambda r: f"key={_sha(r, 16)} hit={r.randrange(2)} cache=fingerprint",
    lambda r: f"python -m pytest -q tests/test_{_pick(r, string.ascii_lowercase, 6)}.py -k 'not slow'",
)  # fmt: skip


# -- the wide corpus: formats and positions, placed where sessions show them, plain and obfuscated --

LOWER_DIGITS = string.ascii_lowercase + string.digits
BASE32_LOWER = "abcdefghijklmnopqrstuvwxyz234567"


def _strong(rng: random.Random, n: int = 18) -> str:
    """A generated password: letters, digits and a few symbols a shell does not mind."""
    core = _pick(rng, ALNUM, n - 3) + _pick(rng, string.digits, 2)
    return core[:6] + rng.choice("!#%+=^") + core[6:]


_WORDS = ("amber", "copper", "falcon", "harbor", "juniper", "lantern", "meadow", "orbit", "quartz", "tundra")


def _phrase(rng: random.Random) -> str:
    return "-".join(rng.choice(_WORDS) for _ in range(3)) + str(rng.randrange(10, 99))


def _uuid4(rng: random.Random) -> str:
    return _uuid(rng)


def _b64_user(rng: random.Random) -> str:
    return base64.b64encode(f"deploy:{_strong(rng)}".encode()).decode()


# Token formats the first corpus did not hold (vendor prefixes; recognised by shape wherever they are).
WIDE_FORMATS: tuple[Maker, ...] = (
    _simple("slack-app-token", lambda r: f"xapp-1-A{_pick(r, UPPER_DIGITS, 10)}-{_pick(r, string.digits, 13)}-{_pick(r, HEX, 64)}", "SLACK_APP_TOKEN={s}"),
    _simple("slack-refresh", lambda r: f"xoxe.xoxp-1-{_pick(r, ALNUM, 140)}", "refresh with {s}"),
    _simple("stripe-webhook", lambda r: "whsec_" + _pick(r, ALNUM, 32), "webhook signing secret {s}"),
    _simple("google-oauth-secret", lambda r: "GOCSPX-" + _pick(r, B64URL, 28), "client secret {s}"),
    _simple("google-access-token", lambda r: "ya29." + _pick(r, B64URL, 120), "gcloud token {s}"),
    _simple("grafana-sa", lambda r: f"glsa_{_pick(r, ALNUM, 32)}_{_pick(r, HEX, 8)}", "grafana {s}"),
    _simple("grafana-cloud", lambda r: "glc_" + _pick(r, ALNUM, 60), "grafana cloud {s}"),
    _simple("docker-pat", lambda r: "dckr_pat_" + _pick(r, B64URL, 27), "docker hub {s}"),
    _simple("supabase", lambda r: "sbp_" + _pick(r, HEX, 40), "supabase {s}"),
    _simple("newrelic", lambda r: "NRAK-" + _pick(r, UPPER_DIGITS, 27), "newrelic {s}"),
    _simple("postman", lambda r: f"PMAK-{_pick(r, HEX, 24)}-{_pick(r, HEX, 34)}", "postman {s}"),
    _simple("azure-client-secret", lambda r: _pick(r, ALNUM, 3) + str(r.randrange(10)) + "Q~" + _pick(r, ALNUM + "_-.~", 34), "azure sp {s}"),
    _simple("azure-devops-pat", lambda r: _pick(r, "abcdefghijklmnopqrstuvwxyz", 20) + _pick(r, BASE32_LOWER, 28) + "2345", "ado {s}"),
    _simple("azure-sas", lambda r: _pick(r, ALNUM, 40) + "%3D", "https://acme.blob.core.windows.net/c/f?sv=2022-11-02&se=2026-06-01&sr=b&sp=r&sig={s}"),
    _simple("discord-webhook", lambda r: f"https://discord.com/api/webhooks/{_pick(r, string.digits, 18)}/{_pick(r, B64URL, 68)}", "post to {s}"),
    _simple("sentry-token", lambda r: "sntrys_" + _pick(r, ALNUM, 60), "sentry {s}"),
    _simple("doppler", lambda r: "dp.pt." + _pick(r, ALNUM, 43), "doppler {s}"),
    _simple("pulumi", lambda r: "pul-" + _pick(r, HEX, 40), "pulumi {s}"),
    _simple("terraform-cloud", lambda r: f"{_pick(r, ALNUM, 14)}.atlasv1.{_pick(r, B64URL, 67)}", "tfc {s}"),
    _simple("netlify", lambda r: "nfp_" + _pick(r, ALNUM, 36), "netlify {s}"),
    _simple("notion", lambda r: "ntn_" + _pick(r, ALNUM, 46), "notion {s}"),
    _simple("planetscale", lambda r: "pscale_tkn_" + _pick(r, ALNUM, 43), "planetscale {s}"),
    _simple("perplexity", lambda r: "pplx-" + _pick(r, ALNUM, 48), "pplx {s}"),
    _simple("langsmith", lambda r: f"lsv2_pt_{_pick(r, HEX, 32)}_{_pick(r, HEX, 10)}", "langsmith {s}"),
    _simple("tavily", lambda r: "tvly-" + _pick(r, ALNUM, 32), "tavily {s}"),
    _simple("rubygems", lambda r: "rubygems_" + _pick(r, HEX, 48), "gem push with {s}"),
    _simple("nuget", lambda r: "oy2" + _pick(r, LOWER_DIGITS, 43), "nuget {s}"),
    _simple("contentful", lambda r: "CFPAT-" + _pick(r, B64URL, 43), "contentful {s}"),
    _simple("square-access", lambda r: "sq0atp-" + _pick(r, B64URL, 22), "square {s}"),
    _simple("mapbox-secret", lambda r: f"sk.eyJ1Ijoi{_pick(r, B64URL, 60)}.{_pick(r, B64URL, 22)}", "mapbox {s}"),
    _simple("dropbox", lambda r: "sl." + _pick(r, B64URL, 136), "dropbox {s}"),
    _simple("alibaba", lambda r: "LTAI" + _pick(r, ALNUM, 20), "aliyun {s}"),
    _simple("tencent", lambda r: "AKID" + _pick(r, ALNUM, 32), "tencent {s}"),
    _simple("firebase-fcm", lambda r: f"AAAA{_pick(r, B64URL, 7)}:APA91b{_pick(r, B64URL, 134)}", "fcm {s}"),
    _simple("shippo", lambda r: "shippo_live_" + _pick(r, HEX, 40), "shippo {s}"),
    _simple("razorpay", lambda r: "rzp_live_" + _pick(r, ALNUM, 14), "razorpay {s}"),
    _simple("bcrypt-hash", lambda r: "$2b$12$" + _pick(r, ALNUM + "./", 53), "admin:{s}"),
    _simple("mailgun", lambda r: "key-" + _pick(r, HEX, 32), "mailgun {s}"),
    _simple("atlassian", lambda r: "ATATT3xFfGF0" + _pick(r, B64URL, 180), "jira {s}"),
    _simple("bitbucket", lambda r: "ATBB" + _pick(r, ALNUM, 32), "bitbucket {s}"),
    _simple("heroku-new", lambda r: "HRKU-" + _pick(r, B64URL, 60), "heroku {s}"),
    _simple("xai", lambda r: "xai-" + _pick(r, ALNUM, 80), "grok {s}"),
    _simple("gitlab-feed", lambda r: "glft-" + _pick(r, ALNUM, 20), "gitlab feed {s}"),
    _simple("linear", lambda r: "lin_api_" + _pick(r, ALNUM, 40), "linear {s}"),
    _simple("fly", lambda r: "fo1_" + _pick(r, B64URL, 43), "fly {s}"),
    _simple("unknown-vendor", lambda r: "acme_live_" + _pick(r, ALNUM, 32), "acme {s}"),
    _simple("unknown-upper", lambda r: "ZXQT-" + _pick(r, UPPER_DIGITS, 30), "zxqt {s}"),
    _simple("bare-random", lambda r: _pick(r, ALNUM, 40), "{s}"),
    _block("pgp-private-key", "PGP PRIVATE KEY BLOCK"),
)  # fmt: skip

# Secrets known by where they are, whatever they look like: password flags, assignments, config
# lines, URLs, headers, prose. The values are strong passwords, phrases, hex, UUIDs and base64.
WIDE_POSITIONS: tuple[Maker, ...] = (
    _simple("mysql-p", _strong, "mysql -u root -p{s} app_db"),
    _simple("sshpass-p", _strong, "sshpass -p '{s}' ssh deploy@10.0.0.5"),
    _simple("curl-u", _strong, "curl -u admin:{s} https://ci.internal/api/json"),
    _simple("redis-cli-a", _strong, "redis-cli -h cache -a {s} ping"),
    _simple("openssl-passout", _strong, "openssl pkcs12 -export -in c.pem -out c.p12 -passout pass:{s}"),
    _simple("keytool-storepass", _strong, "keytool -list -keystore app.jks -storepass {s}"),
    _simple("ldapsearch-w", _strong, "ldapsearch -x -D cn=admin,dc=acme -w {s} -b dc=acme"),
    _simple("sqlcmd-P", _strong, "sqlcmd -S db -U sa -P {s} -Q 'select 1'"),
    _simple("zip-P", _strong, "zip -P {s} backup.zip dump.sql"),
    _simple("gpg-passphrase", _phrase, "gpg --batch --passphrase {s} -d secrets.gpg"),
    _simple("smbclient-U", _strong, "smbclient //files/share -U alice%{s}"),
    _simple("docker-login-p", _strong, "docker login -u ci -p {s} registry.acme.dev"),
    _simple("aws-configure-set", lambda r: _pick(r, B64, 40), "aws configure set aws_secret_access_key {s}"),
    _simple("az-login-p", _strong, "az login -u ops@acme.dev -p {s}"),
    _simple("client-secret-flag", lambda r: _pick(r, ALNUM, 32), "./bin/sync --client-id web --client-secret {s}"),
    _simple("apikey-flag", lambda r: _pick(r, LOWER_DIGITS, 24), "node scripts/upload.js --apiKey {s}"),
    _simple("gh-secret-body", _strong, "gh secret set DEPLOY_KEY --body {s}"),
    _simple("7z-p", _strong, "7z a -p{s} archive.7z logs/"),
    _simple("mongosh-p", _strong, "mongosh --host db -u app -p {s}"),
    _simple("lftp-u", _strong, "lftp -u upload,{s} ftp.acme.dev"),
    _simple("plink-pw", _strong, "plink -ssh ops@host -pw {s} uptime"),
    _simple("htpasswd-b", _strong, "htpasswd -b .htpasswd admin {s}"),
    _simple("sqlplus", _strong, "sqlplus scott/{s}@orcl"),
    _simple("rabbitmqctl", _strong, "rabbitmqctl add_user admin {s}"),
    _simple("cqlsh", _strong, "cqlsh -u cassandra -p {s} db.internal"),
    _simple("xfreerdp", _strong, "xfreerdp /u:admin /p:{s} /v:win.internal"),
    _simple("piped-login", _strong, "echo {s} | docker login -u ci --password-stdin ghcr.io"),
    _simple("wget-password", _strong, "wget --user=ci --http-password={s} https://files.acme.dev/a.tgz"),
    _simple("helm-password", _strong, "helm repo add acme https://charts.acme.dev --username ci --password {s}"),
    _simple("kubectl-token", lambda r: _pick(r, ALNUM, 40), "kubectl --token {s} get pods"),
    _simple("vault-login", lambda r: "s." + _pick(r, ALNUM, 24), "vault login {s}"),
    _simple("libpq-conninfo", _strong, 'psql "host=db user=app password={s} dbname=app"'),
    _simple("ssh-keygen-N", _phrase, "ssh-keygen -t ed25519 -N {s} -f deploy_key"),
    _simple("env-gpg-passphrase", _phrase, "export GPG_PASSPHRASE={s}"),
    _simple("env-db-pass", _strong, "DB_PASS={s} npm run migrate"),
    _simple("env-smtp-pass", _strong, "SMTP_PASS={s}"),
    _simple("env-rails-master-key", lambda r: _pick(r, HEX, 32), "RAILS_MASTER_KEY={s} bin/rails s"),
    _simple("env-jwt-signing-key", lambda r: _pick(r, B64URL, 48), "JWT_SIGNING_KEY='{s}'"),
    _simple("env-github-token-unknown", lambda r: _pick(r, ALNUM, 30), "export GITHUB_TOKEN={s}"),
    _simple("env-pgpassword", _strong, "PGPASSWORD={s} psql -h db -U app"),
    _simple("env-mysql-pwd", _strong, "MYSQL_PWD={s} mysqldump app > dump.sql"),
    _simple("env-secret-key-base", lambda r: _pick(r, HEX, 64), "SECRET_KEY_BASE={s}"),
    _simple("env-azure-client-secret", lambda r: _pick(r, ALNUM, 34), "AZURE_CLIENT_SECRET={s}"),
    _simple("env-powershell", _strong, '$env:API_TOKEN = "{s}"'),
    _simple("dockerfile-env", _strong, "ENV ADMIN_PASSWORD {s}"),
    _simple("setx", _strong, "setx SERVICE_PASSWORD {s}"),
    _simple("tf-var", _strong, "TF_VAR_db_password={s} terraform apply"),
    _simple("env-dd-api-key", lambda r: _pick(r, HEX, 32), "DD_API_KEY={s}"),
    _simple("env-heroku-uuid", _uuid4, "HEROKU_API_KEY={s}"),
    _simple("env-laravel-app-key", lambda r: "base64:" + _b64(r, 32), "APP_KEY={s}"),
    _simple("env-npm-auth", _b64_user, "NPM_CONFIG__AUTH={s}"),
    _simple("npmrc-authtoken", lambda r: _pick(r, B64URL, 36), "//npm.pkg.github.com/:_authToken={s}"),
    _simple("npmrc-auth", _b64_user, "_auth={s}"),
    _simple("pypirc-password", _strong, "[pypi]\nusername = __token__\npassword = {s}"),
    _simple("pgpass-line", _strong, "db.internal:5432:app:deploy:{s}"),
    _simple("maven-password", _strong, "<server><id>nexus</id><username>ci</username><password>{s}</password></server>"),
    _simple("docker-config-auth", _b64_user, '{{"auths": {{"registry.acme.dev": {{"auth": "{s}"}}}}}}'),
    _simple("netrc-multiline", _strong, "machine api.acme.dev\n  login deploy\n  password {s}"),
    _simple("git-credentials", _strong, "https://deploy:{s}@git.acme.dev"),
    _simple("aws-credentials-file", lambda r: _pick(r, B64, 40), "[default]\naws_access_key_id = AKIA" + "IOSFODNN7EXAMPLE" + "\naws_secret_access_key = {s}"),
    _simple("my-cnf", _strong, "[client]\nuser=root\npassword={s}"),
    _simple("gradle-properties", _strong, "signing.password={s}"),
    _simple("appsettings-connection", _strong, '"Default": "Server=db;Database=app;User Id=sa;Password={s};"'),
    _simple("kubeconfig-token", lambda r: _pick(r, ALNUM, 40), "users:\n- name: ci\n  user:\n    token: {s}"),
    _simple("k8s-secret-data", lambda r: _b64(r, 18), "kind: Secret\ndata:\n  password: {s}"),
    _simple("wp-config", _strong, "define( 'DB_PASSWORD', '{s}' );"),
    _simple("spring-properties", _strong, "spring.datasource.password={s}"),
    _simple("yaml-client-secret", lambda r: _pick(r, ALNUM, 32), "oauth:\n  client_secret: {s}"),
    _simple("json-api-key", lambda r: _pick(r, ALNUM, 32), '{{"api_key": "{s}", "region": "eu"}}'),
    _simple("toml-token", lambda r: _pick(r, ALNUM, 32), 'token = "{s}"'),
    _simple("ini-secret-key", lambda r: _pick(r, B64, 40), "secret_key = {s}"),
    _simple("redis-url", _strong, "REDIS_URL=redis://:{s}@cache:6379/0"),
    _simple("amqp-url", _strong, "amqp://app:{s}@mq.internal:5672/"),
    _simple("token-as-url-user", lambda r: _pick(r, ALNUM, 40), "git remote set-url origin https://{s}@github.com/acme/app.git"),
    _simple("url-access-token", lambda r: _pick(r, ALNUM, 36), "GET https://api.acme.dev/v1/me?access_token={s}"),
    _simple("url-api-key", lambda r: _pick(r, ALNUM, 32), "https://api.acme.dev/search?q=x&api_key={s}"),
    _simple("s3-presigned", lambda r: _pick(r, HEX, 64), "https://b.s3.amazonaws.com/k?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Signature={s}"),
    _simple("mongodb-srv", _strong, "mongodb+srv://app:{s}@cluster0.mongodb.net/app"),
    _simple("auth-bearer-random", lambda r: _pick(r, ALNUM, 40), 'curl -H "Authorization: Bearer {s}" https://api.acme.dev'),
    _simple("auth-token-header", lambda r: _pick(r, HEX, 40), "Authorization: Token {s}"),
    _simple("x-api-key-header", lambda r: _pick(r, ALNUM, 32), 'curl -H "X-API-Key: {s}" https://api.acme.dev'),
    _simple("private-token-header", lambda r: _pick(r, B64URL, 20), "curl --header 'PRIVATE-TOKEN: {s}' https://gitlab.acme.dev/api/v4/projects"),
    _simple("cookie-session", lambda r: _pick(r, B64URL, 40), "Cookie: theme=dark; sessionid={s}"),
    _simple("prose-password", _strong, "the staging admin password is {s} for now"),
    _simple("prose-api-key", lambda r: _pick(r, ALNUM, 32), "my api key: {s}"),
    _simple("prose-passphrase", _phrase, "passphrase for the deploy key is {s}"),
    _simple("bare-basic-b64", _b64_user, "credentials {s} (from the vault)"),
)  # fmt: skip

# Text every position must keep as it is (issue 20, item 7).
FALSE_POSITIVES = (
    'API_KEY = os.environ["OPENAI_API_KEY"]',
    "git add -f src/auth/password.ts",
    "src/auth/token_store.py",
    "3e232a99ab04b6ce586168ef27bdc31055868a85",
    "0f8fad5b-d9cb-469f-a165-70867728950e",
    "sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    "NODE_ENV=production",
    "git log --grep token",
)


def wide_corpus(seed: int = 7) -> list[Secret]:
    """Every format and every position: the first corpus, then the wide one (>= 150 kinds)."""
    rng = random.Random(seed)
    return [make(rng) for make in (*MAKERS, *WIDE_FORMATS, *WIDE_POSITIONS)]


# Where a session shows a secret; `path` only for secrets recognisable by their shape alone.
POSITIONS = ("command", "output", "error", "prompt", "edit", "writ", "correction", "path")
OBFUSCATIONS = (
    "plain",
    "unicode-escape",
    "hex-escape",
    "zero-width",
    "soft-hyphen",
    "url-encoded",
    "fullwidth",
)
_SHAPED = {make(random.Random(0)).kind for make in (*MAKERS[:24], *WIDE_FORMATS)} - {
    "aws-secret-key",
    "bare-random",
}


def obfuscate(value: str, how: str) -> str:
    """`value` written so that it does not appear verbatim, as a hostile or careless log might."""
    head, tail = value[:4], value[4:]
    if how == "unicode-escape":
        return "".join(f"\\u{ord(c):04x}" for c in head) + tail
    if how == "hex-escape":
        return "".join(f"\\x{ord(c):02x}" for c in head) + tail
    if how == "zero-width":
        cut = len(value) // 2
        return value[:3] + "\u200b" + value[3:cut] + "\u200d" + value[cut:]
    if how == "soft-hyphen":
        cut = len(value) // 2
        return value[:cut] + "\u00ad" + value[cut:]
    if how == "url-encoded":
        return "".join(f"%{b:02X}" for b in value.encode())
    if how == "fullwidth":
        return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in head) + tail
    return value


@dataclass(frozen=True)
class Case:
    """One secret, placed once: where in the session, and how it is written."""

    n: int
    secret: Secret
    position: str
    how: str

    @property
    def context(self) -> str:
        """The secret's line as this case writes it."""
        if self.how == "plain" or len(self.secret.values) != 1:
            return self.secret.context
        value = self.secret.values[0]
        return self.secret.context.replace(value, obfuscate(value, self.how))

    @property
    def marker(self) -> str:
        return f"marker{self.n}q"

    def turns(self) -> list[tuple[Any, ...]]:
        """The session turns that show this case's secret."""
        one_line = " ".join(self.context.split())
        value = obfuscate(self.secret.values[0], self.how)
        if self.position == "command":
            return [("tool", f"{one_line} && npm test", "sh: 1: vitest: not found", 127),
                    ("tool", "npx vitest run", "Test Files  2 passed (2)", 0)]  # fmt: skip
        if self.position == "output":
            return [("tool", "cat .env.local", self.context, 0)]
        if self.position == "error":
            return [
                ("tool", "npm run deploy", f"Error: deploy failed\n{self.context}\n    at deploy.js:12:7", 1)
            ]
        if self.position == "prompt":
            return [("user", f"please check why the deploy fails, this is what I ran: {self.context}")]
        if self.position == "edit":
            return [
                (
                    "edit",
                    "src/config.ts",
                    "export const region = 'eu';",
                    f"export const region = 'eu';\n// {self.context}",
                )
            ]
        if self.position == "writ":
            return [
                ("user", f"/lesson secret-{self.n}\n{self.marker} keeps this: {self.context}\n/endlesson")
            ]
        if self.position == "correction":
            return [("user", f"no, always use `{one_line}` instead, the {self.marker} way")]
        return [("tool", f"cat ~/.cache/acme/{value}/session.json", '{"ok": true}', 0),
                ("edit", f"src/keys/{value}.ts", "export {}", "export const k = 1")]  # fmt: skip


def wide_cases(seed: int = 7) -> list[Case]:
    """Each kind in two positions (the second obfuscated, in turn every way), >= 300 cases."""
    cases: list[Case] = []
    for i, secret in enumerate(wide_corpus(seed)):
        shaped = secret.kind in _SHAPED and len(secret.values) == 1
        positions = [p for p in POSITIONS if p != "path" or shaped]
        single = "\n" not in secret.context
        choices = [p for p in positions if single or p not in ("correction", "command")]
        first, second = choices[i % len(choices)], choices[(i + 3) % len(choices)]
        how = OBFUSCATIONS[1 + i % (len(OBFUSCATIONS) - 1)] if len(secret.values) == 1 else "plain"
        cases.append(Case(len(cases), secret, first, "plain"))
        cases.append(Case(len(cases), secret, second, how))
    return cases


_ESCAPES = re.compile(r"\\u([0-9a-fA-F]{4})|\\x([0-9a-fA-F]{2})|%([0-9A-Fa-f]{2})")


def readable(text: str) -> str:
    """Text as a person would read it: escapes decoded, invisible characters gone, forms folded."""
    text = _ESCAPES.sub(lambda m: chr(int(next(g for g in m.groups() if g), 16)), text)
    text = "".join(c for c in text if unicodedata.category(c) != "Cf")
    return unicodedata.normalize("NFKC", text)


def leaks(secret: Secret, how: str, haystack: str) -> list[str]:
    """What of `secret` can still be read in `haystack` (already `readable`, and lower-cased)."""
    found = []
    for value in secret.values:
        pieces = [value, *(p for p in re.split(r"[^A-Za-z0-9]+", value) if len(p) >= 10)]
        if how != "plain":
            pieces.append(obfuscate(value, how))
        found.extend(p[:12] for p in pieces if readable(p).lower() in haystack)
    return found
