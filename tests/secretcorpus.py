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
import string
from collections.abc import Callable
from dataclasses import dataclass

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
