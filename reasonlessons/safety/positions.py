r"""Where secrets sit, whatever they look like: the positional rules detect-secrets lacks.

A password passed to `mysql -p`, `sshpass -p` or `--client-secret`, the value of a `*_PASSWORD=`
or `"auth":` assignment, the password of a URL, an `Authorization:` header, the last field of a
`.pgpass` line or a Maven `<password>`: these are secrets because of their place, so they are
redacted even when they look like a word. Places that only hint at a secret (a bare `key=`, "the
token X" in prose) need the value to look random too. Every rule stays on one line (`[ \t]`, never
`\s`, between a name and its value), so nothing matches across the line break of a YAML document,
and values that name something instead of holding it are left alone: references (`$TOKEN`,
`${{ secrets.X }}`), code (`os.environ["KEY"]`, `settings.SECRET`), types (`password: str`),
paths, numbers, booleans and placeholders.

`spans(text)` gives (start, end, kind) of each value found.
"""

# ruff: noqa: E501  (the patterns read best whole)
from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from reasonlessons.safety.formats import random_looking

Span = tuple[int, int, str]

# -- names --------------------------------------------------------------------------------------

STRONG = frozenset(
    {"password", "passwd", "passphrase", "pwd", "pass", "secret", "secrets", "token", "apikey",
     "credential", "credentials", "creds", "passcode", "sig", "signature", "pat", "privatekey",
     "secretkey", "accesskey", "authtoken", "auth", "passout", "passin"}
)  # fmt: skip
# Strong only as the last word: `auth_method`, `pass_rate`, `sig_figs` name settings, not secrets.
_LAST_ONLY = frozenset({"auth", "pass", "sig", "pat", "pwd"})
# Compound words ending in these are secret names (`identitytoken`, `storepass`, `dbpassword`).
_COMPOUND_SUFFIXES = (
    "password",
    "passwd",
    "passphrase",
    "secret",
    "token",
    "apikey",
    "storepass",
    "keypass",
    "pass",
    "pwd",
)
_NOT_PASS = frozenset(
    {
        "bypass",
        "compass",
        "surpass",
        "overpass",
        "underpass",
        "trespass",
        "multipass",
        "onepass",
        "firstpass",
        "encompass",
    }
)
# A name whose last word is one of these describes a secret without holding it.
NOT_SECRET_LAST = frozenset(
    {"count", "length", "len", "size", "type", "types", "name", "names", "file", "files", "path", "paths",
     "dir", "directory", "folder", "url", "uri", "urls", "endpoint", "host", "id", "ids", "env", "var", "vars",
     "field", "fields", "header", "headers", "prefix", "suffix", "format", "policy", "expiry", "expires",
     "expiration", "expire", "expired", "ttl", "timeout", "min", "max", "regex", "re", "pattern", "hint", "label",
     "required", "reset", "enabled", "enable", "disabled", "mode", "version", "algorithm", "alg", "rotation",
     "strength", "validator", "validation", "input", "form", "prompt", "placeholder", "description",
     "help", "error", "errors", "message", "test", "tests", "spec", "helper", "store", "manager",
     "provider", "service", "handler", "factory", "class", "module", "plugin", "option", "options", "flag",
     "flags", "setting", "settings", "config", "location", "method", "scheme", "scope", "scopes", "issuer",
     "audience", "age", "lifetime", "usage", "limit", "limits", "index", "exists", "present", "missing",
     "changed", "hashing", "hasher", "encoder", "generator", "callback", "stdin", "fd", "cmd", "command",
     "source", "ref", "arn", "budget", "estimate", "used", "total", "rate", "level", "kind", "list",
     "map", "counter", "cache", "backend", "server", "user", "username", "login", "email", "owner",
     "mount", "selector", "template", "char", "chars", "bytes", "bits",
     "days", "hours", "minutes", "seconds", "ms", "interval", "window", "retries", "attempts"}
)  # fmt: skip
# Words that turn a trailing `key` into a likely secret (`RAILS_MASTER_KEY`), and those that do not.
_KEY_NOT_SECRET = frozenset(
    {"cache", "primary", "sort", "partition", "foreign", "hash", "range", "row", "lookup", "dict", "map",
     "object", "bucket", "public", "pub", "idempotency", "unique", "composite", "natural", "surrogate",
     "shortcut", "hot", "group", "routing", "message", "index", "search", "meta", "translation", "i18n",
     "locale", "react", "list", "registry", "dedupe", "dedup", "cursor", "s3", "join", "sharding",
     "shard", "table", "column", "field", "query", "state", "request", "keyboard", "press", "music",
     "musical", "content", "text", "idb", "element", "component", "item", "node", "local"}
)  # fmt: skip
_KEY_TAILS = frozenset({"key", "keys"})
_VALUE_TAILS = frozenset(
    {"value", "data", "base", "b64", "hex", "string", "str", "raw", "plain", "plaintext"}
)
_WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+")


def name_words(name: str) -> list[str]:
    """`keyStorePassword` -> key, store, password; `DB_PASS` -> db, pass; `X-Api-Key` -> x, api, key."""
    return [w.lower() for w in _WORD.findall(name)]


STRONG_NAME, KEY_NAME, KEYED_NAME = "strong", "key", "keyed"


def classify(name: str) -> str | None:
    """STRONG_NAME (any literal value is a secret: `DB_PASS`), KEY_NAME (any value but a plain word:
    `JWT_SIGNING_KEY`), KEYED_NAME (a random-looking value: a bare `key`), or None."""
    words = name_words(name)
    if not words:
        return None
    last = words[-1]
    if "private" in words and "key" in words:
        return STRONG_NAME  # a service account's `private_key_id` is kept with its key
    if last in NOT_SECRET_LAST:
        return None
    body = words[:-1] if last in _VALUE_TAILS and len(words) > 1 else words
    tail = body[-1]
    if tail in STRONG:
        return STRONG_NAME
    if any(w in STRONG and w not in _LAST_ONLY for w in body):
        return STRONG_NAME
    if tail in _KEY_TAILS:
        qualifiers = body[:-1]
        if any(w in _KEY_NOT_SECRET for w in qualifiers):
            return None
        return KEY_NAME if qualifiers else KEYED_NAME
    if tail.endswith(_COMPOUND_SUFFIXES) and tail not in _NOT_PASS and len(tail) > 4:
        return STRONG_NAME
    if (
        tail.endswith("key")
        and len(tail) > 5
        and tail[:-3] in ("api", "secret", "access", "private", "master", "auth", "license", "signing")
    ):
        return KEY_NAME
    return None


def kind_of(name: str) -> str:
    words = set(name_words(name))
    joined = "".join(words)
    if words & {"password", "passwd", "pass", "pwd", "passphrase", "passcode"} or "pass" in joined:
        return "password"
    if "token" in joined:
        return "token"
    if words & {"sig", "signature"}:
        return "signature"
    if "secret" in joined:
        return "secret"
    if "key" in joined:
        return "api-key"
    return "credential"


# -- values -------------------------------------------------------------------------------------

_NUMBER = re.compile(r"[\d.,:+-]+[a-zA-Z%]{0,2}$")  # 12, 10.0, 1.2.3, 8080, 30s, 90%
_CODE = re.compile(r"[A-Za-z_$][\w$]*(?:\??\.[A-Za-z_$][\w$]*)*\s*[(\[]")  # get_password(, os.environ[
# settings.SECRET_KEY, config.db2.password: names, not values
_DOTTED = re.compile(r"[A-Za-z_$][A-Za-z_$]*\d{0,2}(?:\??\.[A-Za-z_$][A-Za-z_$]*\d{0,2}){1,8}$")  # fmt: skip
_CONSTANT = re.compile(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$")  # OPENAI_API_KEY names a variable
_IDENTIFIER = re.compile(r"[a-z][a-z0-9]*(?:_[a-z][a-z0-9]*)+$")  # db_password: a variable
_PLAIN_WORD = re.compile(r"[a-z]+(?:[-_][a-z]+)*$")
_PLACEHOLDER = re.compile(
    r"(?i)^(?:<[^<>]*>|\[[^\[\]]*\]|\{[^{}]*\}|\(.*\)|x{3,}|\*{3,}.*|\.{3}|…|•+|your[-_ ].*|.*[-_]here|redacted|hidden|masked|changeme|example|dummy|placeholder|none|null|nil|undefined|true|false|yes|no|on|off|empty|unset|required|optional|string|str|number|int|integer|bool|boolean|any|object|bytes|text|secretstr|password|passwd|secret|token|await|new|function|lambda|async|return|self|this|not|is|and|or|the|from|import|env|stdin|prompt|ask|default|pw|pwd|pass)$"
)
_REFERENCE_START = (
    "$",
    "%",
    "{{",
    "#{",
    "[REDACTED",
    "@",
    "/",
    "./",
    "../",
    "~/",
    "~\\",
    "file:",
    "env:",
    "fd:",
    "vault:",
    "secret:",
    "op://",
    "arn:",
    "projects/",
    "(",
    "[",
    "{",
    "\\\\",
)
_WINDOWS_PATH = re.compile(r"[A-Za-z]:[\\/]")
_DIGEST = re.compile(r"(?i)(?:xxh\w*|sha\d*|md5|h1|blake\w*|crc\d*|murmur\w*|fnv\w*)[:=-]")  # xxh3:1a2b…


def literal(value: str, *, min_len: int = 3) -> bool:
    """Whether a value in a secret's place holds the secret itself (not a name, a path or code)."""
    value = value.strip()
    if len(value) < min_len or value.startswith(_REFERENCE_START) or _WINDOWS_PATH.match(value):
        return False
    if _NUMBER.match(value) or _PLACEHOLDER.match(value) or _CONSTANT.match(value):
        return False
    if _CODE.match(value) or _DOTTED.match(value):
        return False
    return not _IDENTIFIER.match(value)


def keyed(value: str) -> bool:
    """A value after a bare `key`: secret when it is not a plain word, nor hex (a cache key or a
    digest), and looks made up."""
    if re.fullmatch(r"[0-9a-fA-F-]+", value) or _DIGEST.match(value):
        return False
    return (
        literal(value, min_len=8)
        and not _PLAIN_WORD.match(value)
        and (random_looking(value, min_len=8) or (any(c.isdigit() for c in value) and len(value) >= 16))
    )


def judge(name_class: str | None, value: str) -> bool:
    if name_class == STRONG_NAME:
        return literal(value)
    if name_class == KEY_NAME:  # a key is rarely a word, but may be one long made-up word
        return literal(value) and (not _PLAIN_WORD.match(value) or (len(value) >= 12 and value.isalpha()))
    if name_class == KEYED_NAME:
        return keyed(value)
    return False


# -- rules --------------------------------------------------------------------------------------

_V = r"(?:\"(?P<v1>[^\"\n]{1,512})\"|'(?P<v2>[^'\n]{1,512})'|`(?P<v3>[^`\n]{1,512})`|(?P<v4>[^\s\"'`,;)}\]<>&|]{1,512}))"


def _value(match: re.Match[str]) -> tuple[int, int] | None:
    for group in ("v1", "v2", "v3", "v4"):
        if match.group(group) is not None:
            return match.span(group)
    return None


_ASSIGN = re.compile(
    r"(?<![\w$@])(?P<q>[\"']?)(?P<name>[A-Za-z_@][\w.@-]{0,80}?)(?P=q)[ \t]*(?P<sep>:=|=>|=|:(?!//))[ \t]*"
    + _V
)
_ENV_LINE = re.compile(
    r"(?m)(?:^|(?<=[\s`;(]))(?:ENV|ARG|setx|set[ \t]+-[gxUlu]{1,3})[ \t]+(?P<name>[A-Za-z_][\w.-]{0,80})[ \t]+"
    + _V
)
_PAIR = re.compile(r"\([ \t]*(?P<q>[\"'])(?P<name>[A-Za-z_][\w.-]{0,80})(?P=q)[ \t]*,[ \t]*" + _V)
_FLAG = re.compile(r"(?<![\w-])(?P<name>--?[A-Za-z][\w.-]{1,48})(?:=|[ \t]+)(?!-)" + _V)
_XML = re.compile(
    r"<(?P<name>[A-Za-z][\w.:-]{0,60})(?:[ \t][^<>\n]{0,200})?>(?P<v4>[^<\n]{1,1024})</(?P=name)>"
)
_CONFIG_SET = re.compile(
    r"(?i)\b(?:configure[ \t]+set|config(?::set|[ \t]+set)?|secrets?[ \t]+set)(?:[ \t]+--?[\w-]+){0,4}[ \t]+(?P<name>[\w./:@-]{2,100})(?:[ \t]+|=)(?!-)"
    + _V
)


def _named(pattern: re.Pattern[str], text: str, *, flag: bool = False) -> Iterator[Span]:
    """Values of `pattern` whose name group classifies as secret; a rejected match is searched
    again from its name's end, so `env:DB_PASS = x` still finds `DB_PASS = x`."""
    pos = 0
    while True:
        match = pattern.search(text, pos)
        if match is None:
            return
        name = match.group("name")
        span = _value(match)
        cls = classify(name.lstrip("-") if flag else name)
        if span is not None and cls is not None:
            value = text[span[0] : span[1]]
            if flag and value.lower().startswith("pass:"):
                span, value = (span[0] + 5, span[1]), value[5:]
            if (
                judge(cls, value)
                and not _names_a_value(match, name, value)
                and not _code_follows(match, text)
            ):
                yield span[0], span[1], kind_of(name)
                pos = match.end()
                continue
        pos = match.end("name")


def _names_a_value(match: re.Match[str], name: str, value: str) -> bool:
    """`Token: expired`, `sig = hit`, `password=password`: a label or a variable, not a value.

    An unquoted word after `:` or after ` = ` (code spaces its assignments; `.env` and shells do
    not) is a label or a variable; so is a value spelled like its own name."""
    if value.lower() in (name.lower(), name_words(name)[-1] if name_words(name) else ""):
        return True
    sep = match.groupdict().get("sep")
    if match.group("v4") is None or sep is None:
        return False
    spaced = sep != ":" and match.start("sep") > 0 and match.string[match.start("sep") - 1] in " \t"
    return (sep == ":" or spaced) and re.fullmatch(r"[A-Za-z_]+", value) is not None and not _made_up(value)


_CAMEL_PART = re.compile(r"[A-Z][a-z]+|[A-Z]+(?![a-z])|[a-z]+")


def _made_up(value: str) -> bool:
    """Letters only, yet no words: `GuZQGlRulEIDWjCCKqeV` (a generated password or base64 without
    digits), not `userPassword` or `XMLHttpRequest`: its camel-case parts are one or two letters."""
    if len(value) < 16 or value.islower() or value.isupper():
        return False
    parts = _CAMEL_PART.findall(value)
    return len(parts) >= 6 and len(value) / len(parts) < 3.5


def _code_follows(match: re.Match[str], text: str) -> bool:
    """`KEY = os.environ["X"]`: an unquoted value that turns into a call or subscript."""
    if match.group("v4") is None:
        return False
    end = match.end("v4")
    return (
        end < len(text)
        and text[end] in "(["
        and re.fullmatch(r"[A-Za-z_][\w.]*", match.group("v4")) is not None
    )


def _xml(text: str) -> Iterator[Span]:
    for match in _XML.finditer(text):
        cls = classify(match.group("name").split(":")[-1])
        if cls is not None and judge(cls, match.group("v4")):
            yield match.start("v4"), match.end("v4"), kind_of(match.group("name"))


# Commands whose short flags carry a password: flag -> how its value is written.
ATTACHED, BOTH, USERPASS, USERPCT, USERCOMMA, POSITIONAL = (
    "attached",
    "both",
    "user:pass",
    "user%pass",
    "user,pass",
    "positional",
)
_MYSQL = {"-p": ATTACHED}
_ARCHIVE = {"-p": ATTACHED, "-hp": ATTACHED}
CLI_FLAGS: dict[str, dict[str, str]] = {
    **dict.fromkeys(
        (
            "mysql",
            "mysqldump",
            "mysqladmin",
            "mysqlimport",
            "mysqlshow",
            "mysqlcheck",
            "mysqlpump",
            "mariadb",
            "mariadb-dump",
            "mariadb-admin",
        ),
        _MYSQL,
    ),
    "mycli": {"-p": BOTH},
    "sshpass": {"-p": BOTH},
    **dict.fromkeys(
        ("curl", "http", "https", "xh"),
        {
            "-u": USERPASS,
            "--user": USERPASS,
            "-U": USERPASS,
            "--proxy-user": USERPASS,
            "-a": USERPASS,
            "--auth": USERPASS,
        },
    ),
    **dict.fromkeys(("redis-cli", "valkey-cli", "keydb-cli"), {"-a": BOTH, "--pass": BOTH}),
    **dict.fromkeys(
        (
            "ldapsearch",
            "ldapmodify",
            "ldapadd",
            "ldapdelete",
            "ldapwhoami",
            "ldappasswd",
            "ldapcompare",
            "ldapmodrdn",
            "ldapexop",
        ),
        {"-w": BOTH},
    ),
    **dict.fromkeys(
        ("sqlcmd", "bcp", "osql", "isql", "mssql-cli", "psexec", "psexec.exe"), {"-P": BOTH, "-p": BOTH}
    ),
    **dict.fromkeys(("zip", "unzip", "zipcloak", "funzip"), {"-P": BOTH}),
    **dict.fromkeys(("7z", "7za", "7zr", "rar", "unrar"), _ARCHIVE),
    **dict.fromkeys(
        ("smbclient", "rpcclient", "smbmap", "smbget", "smbcacls", "crackmapexec", "nxc", "mount.cifs"),
        {"-U": USERPCT, "--user": USERPCT},
    ),
    **dict.fromkeys(
        ("mongo", "mongosh", "mongodump", "mongorestore", "mongoexport", "mongoimport"), {"-p": BOTH}
    ),
    "ssh-keygen": {"-N": BOTH, "-P": BOTH},
    "openssl": {"-k": BOTH, "-K": BOTH},
    "lftp": {"-u": USERCOMMA},
    **dict.fromkeys(("plink", "pscp", "psftp", "plink.exe", "pscp.exe"), {"-pw": BOTH}),
    "influx": {"-t": BOTH, "-p": BOTH},
    "twine": {"-p": BOTH},
    "doctl": {"-t": BOTH},
    "vault": {"login": POSITIONAL},
}
# Tools whose `-p` means a password only after a subcommand (`docker run -p` is a port).
CLI_SUBCOMMAND_FLAGS: dict[str, tuple[str, dict[str, str]]] = {
    **dict.fromkeys(
        (
            "docker",
            "podman",
            "nerdctl",
            "buildah",
            "skopeo",
            "helm",
            "oras",
            "crane",
            "regctl",
            "az",
            "cf",
            "oc",
        ),
        ("login", {"-p": BOTH}),
    ),
    "gh": ("secret", {"-b": BOTH, "--body": BOTH}),
    "dotnet": ("nuget", {"-p": BOTH}),
    "heroku": ("login", {"-p": BOTH}),
}
_COMMANDS = frozenset({*CLI_FLAGS, *CLI_SUBCOMMAND_FLAGS, "htpasswd", "sqlplus"})
_COMMAND = re.compile(
    r"(?<![\w.-])(?:[\w.~-]*/)?(?P<cmd>"
    + "|".join(re.escape(c) for c in sorted(_COMMANDS, key=len, reverse=True))
    + r")(?![\w.-]|://)"
)
# _COMMAND's command has no [\w.-] character on either side: it is one whole run of them.
_RUN = re.compile(r"[\w.-]+")
_TOKEN = re.compile(r"\"[^\"\n]*\"|'[^'\n]*'|[^\s\"';|&`]+|[;|&`\n]")
_MAX_ARGS = 40


def _cli(text: str) -> Iterator[Span]:
    if _COMMANDS.isdisjoint(_RUN.findall(text)):
        return  # the hint was part of a word (`az` in `lazy`): cheaper than the pattern's search
    scanned = 0  # a command among the words of one already read is read with it: linear time
    for match in _COMMAND.finditer(text):
        if match.start() < scanned:
            continue
        cmd = match.group("cmd")
        args = _args(text, match.end())
        scanned = args[-1][1] if args else match.end()
        if cmd == "htpasswd":
            yield from _htpasswd(args)
            continue
        if cmd == "sqlplus":
            yield from _sqlplus(args)
            continue
        table = CLI_FLAGS.get(cmd)
        if table is None:
            sub, flags = CLI_SUBCOMMAND_FLAGS[cmd]
            if not any(t == sub for _, _, t in args[:4]):
                continue
            table = flags
        yield from _flag_values(table, args)


# Any other command: `-p VALUE` is a password when the same command names a user (`cqlsh -u app
# -p X`, `mosquitto_pub -u app -P X`), except in tools whose -u and -p are switches without values.
_USER_FLAG = re.compile(r"(?<![\w-])(?:-u|-U|--user(?:name)?|--login)(?:=|[ \t]+)(?!-)[^\s;|&`]+")
_PASS_FLAG = re.compile(r"(?<![\w-])(?:-p|-P|-w|-W|-pw|-a|--pass)(?:[ \t]+|=)?(?!-)(?P<v4>[^\s;|&`\"']{2,512}|\"[^\"\n]{2,512}\"|'[^'\n]{2,512}')")  # fmt: skip
_SWITCH_TOOLS = re.compile(r"(?<![\w.-])(?:cp|mv|rsync|tar|git|mkdir|ls|install|diff|patch|sort|ps|scp|ssh|docker|podman|kubectl|pip|npm|uv|pytest|python3?|node|go|cargo|make|gcc|clang|ln|chmod|chown|find|grep|rg|sed|awk|xargs|tee|zip|unzip)(?![\w.-])")  # fmt: skip
_SEGMENT = re.compile(r"[^;|&`\n]+")


def _user_and_password(text: str) -> Iterator[Span]:
    for segment in _SEGMENT.finditer(text):
        part = segment.group(0)
        if "-" not in part or _USER_FLAG.search(part) is None:
            continue
        head = part.lstrip().split(" ", 1)[0].rsplit("/", 1)[-1]
        if _SWITCH_TOOLS.fullmatch(head) or head in CLI_FLAGS or head in CLI_SUBCOMMAND_FLAGS:
            continue  # the table knows these; the rest use -p as a switch
        for match in _PASS_FLAG.finditer(part):
            value = match.group("v4").strip("\"'")
            if literal(value, min_len=2) and "/" not in value and not value.startswith("."):
                yield segment.start() + match.start("v4"), segment.start() + match.end("v4"), "password"


# Passwords that are a command's positional argument, or piped into a command that reads one.
_POSITIONAL = re.compile(
    r"(?i)(?:\brabbitmqctl[ \t]+(?:add_user|change_password)[ \t]+\S+|\bnet[ \t]+user[ \t]+\S+|"
    r"\bconnect[ \t]+to[ \t]+\S+(?:[ \t]+\S+){0,4}?[ \t]+using|\bmysqladmin(?:[ \t]+-\S+){0,6}[ \t]+password|"
    r"--with-token[ \t]*<<<)[ \t]*(?P<v4>[^\s;|&`]{2,512})"
)
_WINDOWS_FLAG = re.compile(r"(?i)(?<!\S)/(?:p|pass|password|pw|pwd):(?P<v4>[^\s;|&`]{2,512})")
_PIPED = re.compile(
    r"\b(?:echo|printf)[ \t]+(?:-\w+[ \t]+)*(?P<q>[\"']?)(?P<v4>[^\s\"'|;&`]{2,512})(?P=q)[ \t]*\|[^\n|]{0,100}?"
    r"(?:--password-stdin|--token-stdin|secret[ \t]+set|\blogin\b|passwd[ \t]+--stdin|chpasswd)"
)


def _positional(text: str) -> Iterator[Span]:
    for pattern in (_POSITIONAL, _WINDOWS_FLAG, _PIPED):
        for match in pattern.finditer(text):
            value = match.group("v4")
            if literal(value, min_len=2) and value.lower() not in ("-", "stdin", "user", "password"):
                yield match.start("v4"), match.end("v4"), "password"


def _args(text: str, pos: int) -> list[tuple[int, int, str]]:
    """The words after a command, up to the end of that command (a pipe, `;`, `&&`, a line end)."""
    out: list[tuple[int, int, str]] = []
    for token in _TOKEN.finditer(text, pos):
        word = token.group(0)
        if word in (";", "|", "&", "`", "\n") or len(out) >= _MAX_ARGS:
            break
        out.append((token.start(), token.end(), word))
    return out


def _unquote(start: int, end: int, word: str) -> tuple[int, int, str]:
    if len(word) >= 2 and word[0] == word[-1] and word[0] in "\"'":
        return start + 1, end - 1, word[1:-1]
    return start, end, word


def _flag_values(table: dict[str, str], args: list[tuple[int, int, str]]) -> Iterator[Span]:
    for i, (start, end, word) in enumerate(args):
        if word in table and table[word] == POSITIONAL:
            rest = [a for a in args[i + 1 :] if not a[2].startswith("-")]
            if rest and "=" not in rest[0][2] and literal(rest[0][2]):
                yield rest[0][0], rest[0][1], "token"
            continue
        how = table.get(word)
        if how is not None and how != ATTACHED:
            if i + 1 < len(args) and not args[i + 1][2].startswith("-"):
                yield from _written(how, *_unquote(*args[i + 1]))
            continue
        for flag, how in table.items():
            if (
                how in (ATTACHED, BOTH)
                and word.startswith(flag)
                and len(word) > len(flag)
                and word[len(flag)] != "="
            ):
                if flag == "-p" and word in ("-pw", "-port"):
                    continue
                yield from _written(how, start + len(flag), end, word[len(flag) :])
            elif word.startswith(flag + "=") and how != POSITIONAL:
                yield from _written(how, start + len(flag) + 1, end, word[len(flag) + 1 :])


def _written(how: str, start: int, end: int, value: str) -> Iterator[Span]:
    """The password inside a flag's value: after `user:`, `user%`, `user,`, or all of it."""
    sep = {USERPASS: ":", USERPCT: "%", USERCOMMA: ","}.get(how)
    if sep is not None:
        at = value.find(sep)
        if at < 0:
            return
        start, value = start + at + 1, value[at + 1 :]
    value = value.strip("\"'")
    if literal(value, min_len=2):
        yield start, end, "password"


def _htpasswd(args: list[tuple[int, int, str]]) -> Iterator[Span]:
    flags = "".join(w[1:] for _, _, w in args if w.startswith("-"))
    if "b" not in flags:
        return
    positional = [a for a in args if not a[2].startswith("-")]
    wanted = 1 if "n" in flags else 2
    if len(positional) > wanted and literal(positional[wanted][2], min_len=2):
        yield positional[wanted][0], positional[wanted][1], "password"


def _sqlplus(args: list[tuple[int, int, str]]) -> Iterator[Span]:
    for start, _, word in args[:3]:
        user, slash, rest = word.partition("/")
        if slash and user and not word.startswith("/"):
            password = rest.split("@", 1)[0]
            if literal(password, min_len=2):
                yield start + len(user) + 1, start + len(user) + 1 + len(password), "password"
            return


_URL_CRED = re.compile(
    r"\b[a-zA-Z][a-zA-Z0-9+.-]{1,20}://(?P<user>[^\s:/@\"'`<>]{0,200}):(?P<pw>[^\s@/\"'`<>]{1,300})@"
)
_URL_USER = re.compile(r"\b[a-zA-Z][a-zA-Z0-9+.-]{1,20}://(?P<user>[^\s:/@\"'`<>]{12,300})@")
_URL_PARAM = re.compile(r"[?&;#](?P<name>[\w.\[\]-]{1,60})=(?P<v4>[^&#\s\"'<>`]{1,1024})")


def _urls(text: str) -> Iterator[Span]:
    for match in _URL_CRED.finditer(text):
        user, password = match.group("user"), match.group("pw")
        if _url_secret(password):
            yield match.start("pw"), match.end("pw"), "url-password"
        if random_looking(user, min_len=16):
            yield match.start("user"), match.end("user"), "url-password"
    for match in _URL_USER.finditer(text):
        if random_looking(match.group("user"), min_len=16):
            yield match.start("user"), match.end("user"), "url-token"
    if "=" in text:
        for match in _URL_PARAM.finditer(text):
            name = match.group("name")
            cls = KEYED_NAME if name.lower() == "key" else classify(name)
            if judge(cls, match.group("v4")):
                yield match.start("v4"), match.end("v4"), kind_of(name)


def _url_secret(value: str) -> bool:
    return not (
        value.startswith(("$", "%24", "{", "<", "*", "[REDACTED"))
        or _PLACEHOLDER.match(value)
        or value.isdigit()
    )


_AUTH_HEADER = re.compile(
    r"(?i)\b(?:proxy-)?authori[sz]ation[\"']?[ \t]*[:=][ \t]*[\"']?(?:(?P<scheme>bearer|basic|token|digest|bot|apikey|api-key|key|sso-key|hmac|aws4-hmac-sha256|negotiate|ntlm|splunk|sharedkey|dsn|otp|pat)[ \t]+)?(?P<v4>[^\s\"',;]{4,4096})"
)
_BEARER = re.compile(r"(?i)\b(?P<scheme>bearer|basic)[ \t]+(?P<v4>[A-Za-z0-9._~+/=:-]{12,4096})")
_SCHEMES = frozenset({"bearer", "basic", "token", "digest", "bot", "key", "negotiate", "ntlm"})


def _headers(text: str) -> Iterator[Span]:
    for match in _AUTH_HEADER.finditer(text):
        value = match.group("v4")
        if value.lower() not in _SCHEMES and literal(value, min_len=4):
            yield match.start("v4"), match.end("v4"), "auth-header"
    for match in _BEARER.finditer(text):
        value = match.group("v4")
        if literal(value) and (not _PLAIN_WORD.match(value) or len(value) >= 24):
            yield match.start("v4"), match.end("v4"), "auth-header"


_COOKIE = re.compile(r"(?i)\b(?:set-)?cookie[\"']?[ \t]*:[ \t]*(?P<rest>[^\n]{1,4096})")
_COOKIE_PAIR = re.compile(r"(?P<name>[\w.-]{1,60})=(?P<v4>[^;,\s\"']{8,2048})")
_COOKIE_NAMES = re.compile(r"(?i)sess|sid|auth|token|jwt|remember|login|user_?id|csrf|xsrf")


def _cookies(text: str) -> Iterator[Span]:
    for match in _COOKIE.finditer(text):
        base = match.start("rest")
        for pair in _COOKIE_PAIR.finditer(match.group("rest")):
            if _COOKIE_NAMES.search(pair.group("name")) and literal(pair.group("v4")):
                yield base + pair.start("v4"), base + pair.end("v4"), "cookie"


_PGPASS = re.compile(
    r"(?m)(?:^|(?<=[\s\"'>`]))[\w.*-]+:(?:\d{1,5}|\*):[^:\s\"'`]+:[^:\s\"'`]+:(?P<v4>[^\s\"'`]{1,256})"
    r"(?=$|[\s\"'`])"
)
_NETRC = re.compile(r"(?i)\b(?:login|user)[ \t]+\S+[ \t]+password[ \t]+(?P<v4>\S{1,256})")
_NETRC_LINE = re.compile(r"(?im)^[ \t]*(?:password|passwd)[ \t]+(?P<v4>\S{1,256})[ \t]*$")


def _config_lines(text: str) -> Iterator[Span]:
    if text.count(":") >= 4:
        for match in _PGPASS.finditer(text):
            if literal(match.group("v4"), min_len=2):
                yield match.start("v4"), match.end("v4"), "password"
    for match in _NETRC.finditer(text):
        if literal(match.group("v4")):
            yield match.start("v4"), match.end("v4"), "password"
    for match in _NETRC_LINE.finditer(text):
        if literal(match.group("v4")) and not _PLAIN_WORD.match(match.group("v4")):
            yield match.start("v4"), match.end("v4"), "password"


# "the password is X", "the root password on staging is now X": a connector, maybe an adverb, a value.
_PROSE = re.compile(
    r"(?i)\b(?P<name>pass(?:word|wd|phrase|code)?|pwd|secret|token|api[ _-]?key|access[ _-]?key|key|pat|credentials?)s?\b(?:[ \t]+(?:[\w-]+[ \t]+){0,3}?(?:is|was|are|to|of|=|:|->)[ \t]*(?:(?:now|still|currently|just|simply|set[ \t]+to|changed[ \t]+to)[ \t]+)?|[ \t]*[:=(][ \t]*|[ \t]+)[\"'`]?(?P<v4>[^\s\"'`,;)}\]<>]{6,512})"
)


def _prose(text: str) -> Iterator[Span]:
    for match in _PROSE.finditer(text):
        value = match.group("v4").rstrip(".!?")
        if not value:
            continue
        end = match.start("v4") + len(value)
        if match.group("name").lower().startswith(("pass", "pwd")):
            ok = (
                literal(value, min_len=6)
                and not _PLAIN_WORD.match(value)
                and (any(c.isdigit() for c in value) or not value.isalnum())
            )
        elif match.group("name").lower() == "key":
            ok = keyed(value)  # `key=<hex>` is a cache key or a digest as often as a secret
        else:
            ok = random_looking(value) and literal(value)
        if ok:
            yield match.start("v4"), end, kind_of(match.group("name"))


# The patterns below try every word of a text (the cost of a secret scan on prose); each needs a
# character or a word that most texts of advice lack, and the finder looks for it first.
_DASH_LETTER = re.compile(r"-[A-Za-z]")


def _assignments(text: str) -> Iterator[Span]:
    if ":" in text or "=" in text:  # every separator _ASSIGN takes
        yield from _named(_ASSIGN, text)


def _env_lines(text: str) -> Iterator[Span]:
    if "ENV" in text or "ARG" in text or "set" in text:  # _ENV_LINE's keywords (`setx` holds `set`)
        yield from _named(_ENV_LINE, text)


def _flags(text: str) -> Iterator[Span]:
    if _DASH_LETTER.search(text):  # how _FLAG's name starts (`-p`, `--password`)
        yield from _named(_FLAG, text, flag=True)


Finder = Callable[[str], Iterator[Span]]
# (finder, hints): a finder runs only on a text holding one of its hints (lower case).
_SECRET_WORDS = ("pass", "pwd", "secret", "token", "key", "auth", "cred", "sig", "pat")
FINDERS: tuple[tuple[Finder, tuple[str, ...]], ...] = (
    (_assignments, _SECRET_WORDS),
    (_env_lines, _SECRET_WORDS),
    (lambda t: _named(_PAIR, t), _SECRET_WORDS),
    (_flags, _SECRET_WORDS),
    (lambda t: _named(_CONFIG_SET, t), ("config", "secret")),
    (_xml, _SECRET_WORDS),
    (_cli, tuple(sorted({*CLI_FLAGS, *CLI_SUBCOMMAND_FLAGS, "htpasswd", "sqlplus"}))),
    (_user_and_password, ("-u", "--user", "--login")),
    (_positional, ("rabbitmqctl", "net user", "connect", "mysqladmin", "with-token", "/p", "echo", "printf")),
    (_urls, ("://", "=")),
    (_headers, ("authori", "bearer", "basic")),
    (_cookies, ("cookie",)),
    (_config_lines, (":", "password", "passwd")),
    (_prose, _SECRET_WORDS),
)
HINT_WORDS: tuple[str, ...] = tuple(sorted({h for _, hints in FINDERS for h in hints}))
_HINT_SETS = tuple(frozenset(hints) for _, hints in FINDERS)  # one set test per finder, not a loop


def spans(text: str, present: set[str] | None = None) -> list[Span]:
    """(start, end, kind) of every value in a secret's place; `present` are the hint words known to
    occur in the lower-cased text (None: find out here)."""
    folded = text.lower() if present is None else ""
    out: list[Span] = []
    for (finder, hints), hint_set in zip(FINDERS, _HINT_SETS, strict=True):
        if present is not None:
            if present.isdisjoint(hint_set):
                continue
        elif not any(h in folded for h in hints):
            continue
        out.extend(finder(text))
    return out
