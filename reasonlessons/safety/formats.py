"""Secret formats recognised by their shape alone: a vendor prefix, a fixed alphabet and length.

Each `Rule` is one format: its pattern, the group that is the secret (0 = the whole match), an
optional check of the value, and `hints`, literal substrings one of which every match contains (in
lower case when the pattern ignores case), so that a text holding none of them skips the rule.
What detect-secrets already finds well is not repeated here (reasonlessons.safety.secretscan); what
it misses or only half-matches is. Where a secret sits rather than what it looks like (`-p` of
`mysql`, `*_PASSWORD=`, a URL's password) is reasonlessons.safety.positions' business.
"""

# ruff: noqa: E501  (one format per line reads best)
from __future__ import annotations

import bisect
import math
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass


@dataclass(frozen=True)
class Rule:
    """One secret shape: `group` is the part replaced (0 = the whole match); `finder`, when set,
    finds the spans instead of the pattern's matches."""

    kind: str
    pattern: re.Pattern[str]
    group: int = 0
    check: Callable[[str], bool] | None = None
    hints: tuple[str, ...] = ()
    finder: Callable[[str], Iterator[tuple[int, int]]] | None = None
    # Every match is at least this many characters none of which is whitespace: a text with no
    # word that long skips the rule (unhinted rules would otherwise search every text).
    run: int = 0

    def spans(self, text: str) -> Iterator[tuple[int, int]]:
        if self.finder is not None:
            yield from self.finder(text)
            return
        for match in self.pattern.finditer(text):
            start, end = match.span(self.group)
            if start >= 0 and end > start and (self.check is None or self.check(text[start:end])):
                yield start, end


def entropy(value: str) -> float:
    """Shannon entropy in bits per character."""
    if not value:
        return 0.0
    counts: dict[str, int] = {}
    for ch in value:
        counts[ch] = counts.get(ch, 0) + 1
    n = len(value)
    return -sum(c / n * math.log2(c / n) for c in counts.values())


def random_looking(value: str, *, min_len: int = 12) -> bool:
    """Not a word, a number, a reference or a placeholder: letters and digits, high entropy."""
    if len(value) < min_len or value.startswith(("$", "<", "%", "{", "[REDACTED")):
        return False
    has_digit = any(c.isdigit() for c in value)
    has_alpha = any(c.isalpha() for c in value)
    return has_digit and has_alpha and entropy(value) >= 3.0


def _not_hex(value: str) -> bool:
    return re.fullmatch(r"[0-9a-fA-F]+", value) is None


def _base32_token(value: str) -> bool:
    """An Azure DevOps PAT: 52 characters of lowercase base32, so no 0, 1, 8 or 9 and letters past f."""
    return sum(c.isdigit() for c in value) >= 3 and any(c > "f" for c in value if c.isalpha())


_B64URL = r"[A-Za-z0-9_-]"
_KEY_BEGIN = re.compile(r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----")
_KEY_END = re.compile(r"-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----")
MAX_KEY_BLOCK = 16384


def _key_blocks(text: str) -> Iterator[tuple[int, int]]:
    """A private key block from BEGIN to its END (or the end of the text, when that is near): the
    END markers are found once, so a text of many BEGIN lines costs linear time."""
    begins = [m.span() for m in _KEY_BEGIN.finditer(text)]
    if not begins:
        return
    ends = [m.span() for m in _KEY_END.finditer(text)]
    starts = [start for start, _ in ends]
    for start, head_end in begins:
        i = bisect.bisect_left(starts, head_end)
        if i < len(ends) and ends[i][0] - head_end <= MAX_KEY_BLOCK:
            yield start, ends[i][1]
        elif len(text) - head_end <= MAX_KEY_BLOCK:
            yield start, len(text)


RULES: tuple[Rule, ...] = (
    Rule("private-key", _KEY_BEGIN, hints=("-----BEGIN",), finder=_key_blocks),
    Rule("private-key", re.compile(r"PuTTY-User-Key-File-\d[\s\S]{0,8192}?Private-MAC: [0-9a-f]+"), hints=("PuTTY-User-Key",)),
    Rule("aws-access-key", re.compile(r"\b(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|APKA)[0-9A-Z]{16}\b"), hints=("AKIA", "ASIA", "ABIA", "ACCA", "AGPA", "AIDA", "AROA", "AIPA", "ANPA", "ANVA", "APKA")),
    Rule("aws-secret-key", re.compile(r"(?i)aws.{0,20}?(?:secret|key).{0,20}?[\"']?[ \t]*[:=][ \t]*[\"']?([A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])"), 1, hints=("aws",)),
    Rule("github-token", re.compile(r"\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{30,255}\b"), hints=("ghp_", "gho_", "ghu_", "ghs_", "ghr_")),
    Rule("github-token", re.compile(r"\bgithub_pat_[A-Za-z0-9_]{22,255}\b"), hints=("github_pat_",)),
    Rule("gitlab-token", re.compile(r"\bgl(?:pat|dt|rt|ptt|ft|soat|cbt|imt|agent|oas|ffct)-[A-Za-z0-9_-]{20,}"), hints=("gl",)),
    Rule("gitlab-token", re.compile(r"\bGR1348941[A-Za-z0-9_-]{20,}"), hints=("GR1348941",)),
    Rule("slack-token", re.compile(r"\bxox[abposre]-[A-Za-z0-9-]{10,}|\bxoxe\.xox[bp]-\d-[A-Za-z0-9-]{20,}|\bxapp-\d-[A-Za-z0-9-]{20,}"), hints=("xox", "xapp-")),
    Rule("slack-webhook", re.compile(r"https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9/_-]+"), hints=("hooks.slack.com",)),
    Rule("discord-webhook", re.compile(r"(?i)https://(?:\w+\.)?discord(?:app)?\.com/api/webhooks/\d+/[A-Za-z0-9_-]{20,}"), hints=("discord",)),
    Rule("webhook-url", re.compile(r"(?i)https://[\w.-]+\.(?:webhook\.office\.com|logic\.azure\.com)/\S{20,}|https://hooks\.zapier\.com/hooks/catch/\d+/\w+"), hints=("webhook.office.com", "logic.azure.com", "hooks.zapier.com")),
    Rule("webhook-url", re.compile(r"(?i)/(?:hooks|webhooks?|trigger/[\w-]+/with/key)/(?:[\w-]+/)?([A-Za-z0-9_-]{20,})"), 1, lambda v: random_looking(v, min_len=20), hints=("hook", "trigger")),
    # OpenAI (`sk-`, `sk-proj-`), Anthropic (`sk-ant-api03-`), DeepSeek (`sk-` + hex), OpenRouter.
    Rule("api-key", re.compile(r"\bsk-(?:proj-|ant-(?:[a-z]+\d*-)?|or-v1-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}"), hints=("sk-",)),
    Rule("stripe-key", re.compile(r"\b(?:sk|rk|pk)_(?:live|test)_[0-9A-Za-z]{16,}\b"), hints=("_live_", "_test_")),
    Rule("stripe-webhook-secret", re.compile(r"\bwhsec_[A-Za-z0-9+/=]{24,}"), hints=("whsec_",)),
    Rule("google-api-key", re.compile(r"\bAIza[0-9A-Za-z_-]{35}\b"), hints=("AIza",)),
    Rule("google-oauth-secret", re.compile(r"\bGOCSPX-[A-Za-z0-9_-]{20,}"), hints=("GOCSPX-",)),
    Rule("google-oauth-token", re.compile(rf"\bya29\.{_B64URL}{{20,}}|\b1//0{_B64URL}{{40,}}"), hints=("ya29.", "1//0")),
    Rule("npm-token", re.compile(r"\bnpm_[A-Za-z0-9]{36}\b"), hints=("npm_",)),
    Rule("huggingface-token", re.compile(r"\b(?:hf|api_org)_[A-Za-z0-9]{30,}\b"), hints=("hf_", "api_org_")),
    Rule("vault-token", re.compile(r"\bhv[sbr]\.[A-Za-z0-9_-]{24,}"), hints=("hvs.", "hvb.", "hvr.")),
    Rule("digitalocean-token", re.compile(r"\bdo[por]_v1_[a-f0-9]{64}\b"), hints=("dop_v1_", "doo_v1_", "dor_v1_")),
    Rule("groq-key", re.compile(r"\bgsk_[A-Za-z0-9]{40,}\b"), hints=("gsk_",)),
    Rule("xai-key", re.compile(r"\bxai-[A-Za-z0-9]{40,}\b"), hints=("xai-",)),
    Rule("replicate-token", re.compile(r"\br8_[A-Za-z0-9]{30,}\b"), hints=("r8_",)),
    Rule("shopify-token", re.compile(r"\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}\b"), hints=("shpat_", "shpca_", "shppa_", "shpss_")),
    Rule("databricks-token", re.compile(r"\bdapi[a-f0-9]{32}(?:-\d)?\b"), hints=("dapi",)),
    Rule("linear-key", re.compile(r"\blin_(?:api|oauth)_[A-Za-z0-9]{32,}\b"), hints=("lin_api_", "lin_oauth_")),
    Rule("age-secret-key", re.compile(r"\bAGE-SECRET-KEY-1[0-9A-Z]{50,}\b"), hints=("AGE-SECRET-KEY-1",)),
    Rule("pypi-token", re.compile(r"\bpypi-AgE[A-Za-z0-9_-]{40,}"), hints=("pypi-AgE",)),
    Rule("grafana-token", re.compile(r"\bglsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}\b|\bglc_[A-Za-z0-9+/]{32,}={0,2}"), hints=("glsa_", "glc_")),
    Rule("docker-token", re.compile(r"\bdckr_(?:pat|oat)_[A-Za-z0-9_-]{20,}"), hints=("dckr_",)),
    Rule("supabase-token", re.compile(r"\bsbp_[a-f0-9]{40}\b|\bsb_secret_[A-Za-z0-9_-]{20,}"), hints=("sbp_", "sb_secret_")),
    Rule("newrelic-key", re.compile(r"\bNR(?:AK|II|JS|AA|RA|SP)-[A-Z0-9]{20,}\b"), hints=("NRAK-", "NRII-", "NRJS-", "NRAA-", "NRRA-", "NRSP-")),
    Rule("postman-key", re.compile(r"\bPMAK-[a-f0-9]{24}-[a-f0-9]{34}\b"), hints=("PMAK-",)),
    Rule("azure-client-secret", re.compile(r"(?<![A-Za-z0-9_~.-])[A-Za-z0-9_~.-]{3}\dQ~[A-Za-z0-9_~.-]{31,34}(?![A-Za-z0-9_~.-])"), hints=("Q~",)),
    Rule("azure-devops-pat", re.compile(r"\b[a-z2-7]{52}\b"), check=_base32_token, run=52),
    Rule("azure-devops-pat", re.compile(r"\b[A-Za-z0-9]{76}AZDO[A-Za-z0-9]{4}\b"), hints=("AZDO",)),
    Rule("connection-string-key", re.compile(r"(?i)\b(?:AccountKey|SharedAccessKey|SharedSecret|SharedAccessSignature)[ \t]*=[ \t]*([A-Za-z0-9+/%=&:-]{20,})"), 1, hints=("accountkey", "sharedaccesskey", "sharedsecret", "sharedaccesssignature")),
    Rule("atlassian-token", re.compile(r"\bAT(?:ATT|CTT)3[A-Za-z0-9_=-]{100,}|\bATBB[A-Za-z0-9_=.-]{28,}"), hints=("ATATT3", "ATCTT3", "ATBB")),
    Rule("sentry-token", re.compile(r"\bsntry[su]_[A-Za-z0-9+/=_]{40,}"), hints=("sntry",)),
    Rule("heroku-key", re.compile(r"\bHRKU-[A-Za-z0-9_-]{40,}"), hints=("HRKU-",)),
    Rule("mailgun-key", re.compile(r"\bkey-[a-f0-9]{32}\b"), hints=("key-",)),
    Rule("doppler-token", re.compile(r"\bdp\.(?:pt|st|sa|ct|scim|audit)\.[A-Za-z0-9]{30,}"), hints=("dp.",)),
    Rule("pulumi-token", re.compile(r"\bpul-[a-f0-9]{40}\b"), hints=("pul-",)),
    Rule("terraform-token", re.compile(r"\b[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{60,}"), hints=("atlasv1",)),
    Rule("flyio-token", re.compile(r"\bFlyV1 fm\d_[A-Za-z0-9+/=,_-]{40,}|\bfo1_[A-Za-z0-9_-]{30,}"), hints=("FlyV1", "fo1_")),
    Rule("netlify-token", re.compile(r"\bnfp_[A-Za-z0-9]{30,}"), hints=("nfp_",)),
    Rule("notion-token", re.compile(r"\bsecret_[A-Za-z0-9]{43}\b|\bntn_[A-Za-z0-9]{40,}"), hints=("secret_", "ntn_")),
    Rule("airtable-token", re.compile(r"\bpat[A-Za-z0-9]{14}\.[a-f0-9]{64}\b"), hints=("pat",)),
    Rule("planetscale-token", re.compile(r"\bpscale_(?:tkn|pw|oauth)_[A-Za-z0-9_.=-]{30,}"), hints=("pscale_",)),
    Rule("llm-key", re.compile(r"\b(?:pplx-[A-Za-z0-9]{40,}|lsv2_(?:pt|sk)_[a-f0-9]{32}_[a-f0-9]{10}|pcsk_[A-Za-z0-9_]{40,}|tvly-[A-Za-z0-9-]{20,}|fw_[A-Za-z0-9]{20,}|csk-[a-z0-9]{40,}|nvapi-[A-Za-z0-9_-]{40,})"), hints=("pplx-", "lsv2_", "pcsk_", "tvly-", "fw_", "csk-", "nvapi-")),
    Rule("package-registry-token", re.compile(r"\b(?:rubygems_[a-f0-9]{48}|oy2[a-z0-9]{43}|cio[A-Za-z0-9]{32}|CLOJARS_[a-z0-9]{60})\b"), hints=("rubygems_", "oy2", "cio", "CLOJARS_")),
    Rule("contentful-token", re.compile(r"\bCFPAT-[A-Za-z0-9_-]{40,}"), hints=("CFPAT-",)),
    Rule("square-token", re.compile(r"\bsq0(?:atp|csp|idp)-[A-Za-z0-9_-]{20,}|\bEAAA[A-Za-z0-9_+-]{55,}"), hints=("sq0", "EAAA")),
    Rule("facebook-token", re.compile(r"\bEAA[A-Za-z0-9]{80,}"), hints=("EAA",)),
    Rule("twitter-token", re.compile(r"\bA{20,24}[A-Za-z0-9%]{30,}"), hints=("AAAAAAAAAAAAAAAAAAAA",)),
    Rule("mapbox-token", re.compile(r"\bsk\.eyJ[A-Za-z0-9_-]{40,}\.[A-Za-z0-9_-]{20,}"), hints=("sk.eyJ",)),
    Rule("dropbox-token", re.compile(r"\bsl\.[A-Za-z0-9_-]{120,}"), hints=("sl.",)),
    Rule("alibaba-key", re.compile(r"\bLTAI[A-Za-z0-9]{12,20}\b"), hints=("LTAI",)),
    Rule("tencent-key", re.compile(r"\bAKID[A-Za-z0-9]{32}\b"), hints=("AKID",)),
    Rule("firebase-key", re.compile(r"\bAAAA[A-Za-z0-9_-]{7}:APA91b[A-Za-z0-9_-]{100,}"), hints=("APA91b",)),
    Rule("payment-key", re.compile(r"\b(?:shippo_(?:live|test)_[a-f0-9]{40}|FLWSECK(?:_TEST)?-[A-Za-z0-9]{20,}-X|rzp_(?:live|test)_[A-Za-z0-9]{14,}|access_token\$production\$[a-z0-9]{16}\$[a-f0-9]{32})"), hints=("shippo_", "FLWSECK", "rzp_", "access_token$")),
    Rule("cloudflare-key", re.compile(r"\bv1\.0-[a-f0-9]{24}-[a-f0-9]{140,}"), hints=("v1.0-",)),
    Rule("password-hash", re.compile(r"\$(?:2[abxy]|apr1|1|5|6|y|argon2(?:id|i|d)|scrypt|pbkdf2(?:-sha\d+)?)\$[A-Za-z0-9./$=,+-]{16,}"), hints=("$",)),
    Rule("jwt", re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"), hints=("eyJ",)),
    Rule("jwt", re.compile(r"\beyJ[A-Za-z0-9_-]{20,}\.[A-Za-z0-9_-]{20,}\.[A-Za-z0-9_-]{20,}"), hints=("eyJ",)),
)  # fmt: skip


def _prefixed(value: str) -> bool:
    """`vendor_RANDOM` or `VENDOR-RANDOM`: a short word, then a random tail of 20 or more."""
    tail = re.split(r"[_-]", value)[-1]
    if len(tail) < 20 or _HASH_PREFIX.match(value):
        return False
    digits = sum(c.isdigit() for c in tail)
    letters = sum(c.isalpha() for c in tail)
    if not digits or not letters:
        return False
    if _not_hex(tail):
        return any(c > "f" for c in tail.lower() if c.isalpha()) and entropy(tail) >= 3.5
    return len(tail) >= 32 and entropy(tail) >= 3.5  # hex after a vendor word: a key, not a digest


_HASH_PREFIX = re.compile(
    r"(?i)(?:sha\d*|md5|xxh\w*|blake\w*|crc\d*|commit|rev|hash|digest|id|uuid|build|chunk|v\d+|"
    r"sum|etag|checksum|object|tree|blob|layer|image|sig|gpg|node|cache|key)[_-]"
)
_GENERIC_PREFIXED = Rule(
    "token",
    re.compile(r"(?<![A-Za-z0-9_.+=-])(?:[a-z]{2,10}|[A-Z]{2,10})[_-](?:[A-Za-z0-9]{1,10}[_-]){0,3}[A-Za-z0-9]{20,200}(?![A-Za-z0-9_+=-])"),
    check=_prefixed,
    run=23,
)  # fmt: skip


def _high_entropy(value: str) -> bool:
    """A random base62 token with no vendor word: upper, lower and digits interleaved at random.

    An identifier (`ModuleNotFoundError2`) changes character class about once a word; a random
    token about every other character, and it has no run of lower-case letters longer than a word
    in it is likely to be."""
    if len(value) > 200:
        return False
    upper = sum(c.isupper() for c in value)
    lower = sum(c.islower() for c in value)
    digits = sum(c.isdigit() for c in value)
    if upper < 2 or lower < 2 or digits < 2:
        return False
    changes = sum(_cls(a) != _cls(b) for a, b in zip(value, value[1:], strict=False))
    return changes / (len(value) - 1) >= 0.4 and entropy(value) >= (3.5 if len(value) < 32 else 4.0)


def _cls(ch: str) -> int:
    return 0 if ch.isdigit() else 1 if ch.isupper() else 2


# Runs of base62 set off by anything but the characters of base64, identifiers and dotted names (a
# run in a path segment counts: a random 20-character file name is a token's, not a person's).
_GENERIC_RANDOM = Rule(
    "high-entropy",
    re.compile(r"(?<![A-Za-z0-9_.+~%-])[A-Za-z0-9]{20,200}(?![A-Za-z0-9_+=~-])"),
    check=_high_entropy,
    run=20,
)  # fmt: skip
GENERIC: tuple[Rule, ...] = (_GENERIC_PREFIXED, _GENERIC_RANDOM)
_BLOB_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=")
_BLOB_REACH = 512  # how far around a run to look: bounded, so a huge blob costs linear time


def in_blob(text: str, start: int, end: int) -> bool:
    """Whether the run text[start:end] is a piece of base64 data (an image, a digest), not a token
    of its own: the base64 around it has `+` or padding, or other random pieces beside it (a path's
    other segments are words)."""
    left, right = start, end
    while left > max(0, start - _BLOB_REACH) and text[left - 1] in _BLOB_CHARS:
        left -= 1
    while right < min(len(text), end + _BLOB_REACH) and text[right] in _BLOB_CHARS:
        right += 1
    if left == start and right == end:
        return False
    if BENIGN_BEFORE.search(text, max(0, left - 24), left):
        return True  # `base64,…/run`, `sha512-…/run`: encoded data from its start
    blob = text[left:right]
    if "+" in blob or blob.endswith("="):
        return True
    run = text[start:end]
    return any(len(p) >= 12 and p != run and random_looking(p) for p in blob.split("/"))


# Contexts whose random-looking runs are content digests or encoded data, not credentials.
BENIGN_BEFORE = re.compile(r"(?i)(?:sha\d+|md5|h1|xxh\w*|blake\w*|integrity|base64|sri)[-:,=][ \t]*[\"']?$")


def _derived(value: str) -> bool:
    """A secret that was lower-cased or cut into words still has this: 16+ letters and digits,
    not hexadecimal, at least two digits, letters past `f`, high entropy (`akia2x…`, a slug of
    a token). Words, versions, hex digests and UUID parts do not."""
    digits = sum(c.isdigit() for c in value)
    if digits < 2 or digits == len(value) or not _not_hex(value):
        return False
    lowered = value.lower()
    return sum(c > "f" for c in lowered if c.isalpha()) >= 2 and entropy(lowered) >= 3.3


def looks_derived(word: str) -> bool:
    """A word that is a piece of a secret, lower-cased or not (see _derived)."""
    return len(word) >= 16 and DERIVED.pattern.fullmatch(word) is not None and _derived(word)


DERIVED = Rule("derived", re.compile(r"(?<![A-Za-z0-9])[A-Za-z0-9]{16,256}(?![A-Za-z0-9])"), check=_derived)
