"""config.toml: project over global over the defaults; every key checked; mistakes name file and key."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from reasonlessons.constants import EXIT_USAGE
from reasonlessons.errors import ConfigError
from reasonlessons.lessons.locations import Locations
from reasonlessons.store import config
from reasonlessons.store.config import DEFAULTS
from reasonlessons.store.configfile import KEYS
from tests.invoke import Invoke
from tests.paths import REPO_ROOT


@pytest.fixture
def loc(tmp_path: Path) -> Locations:
    return Locations(root=tmp_path / "repo", home=tmp_path / "home")


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_no_files_means_the_defaults(loc: Locations) -> None:
    assert config.load(loc) == DEFAULTS
    assert (DEFAULTS.min_tool_calls, DEFAULTS.max_candidates, DEFAULTS.min_confidence) == (3, 5, 0.6)
    assert (DEFAULTS.budget, DEFAULTS.top_k, DEFAULTS.archive_floor, DEFAULTS.decay_days) == (
        200,
        10,
        0.3,
        30.0,
    )
    assert DEFAULTS.auto_after == 7 * 86_400


def test_project_wins_over_global_key_by_key(loc: Locations) -> None:
    write(loc.global_dir / "config.toml", "[recall]\nbudget = 500\ntop-k = 3\n[learning]\ndecay-days = 14\n")
    write(loc.project_dir / "config.toml", "[recall]\nbudget = 120\n[promote]\nauto-after = '2w'\n")
    got = config.load(loc)
    assert (got.budget, got.top_k, got.decay_days, got.auto_after) == (120, 3, 14.0, 14 * 86_400)


GOOD = {
    "capture.min-tool-calls": "1",
    "capture.max-candidates": "2",
    "capture.min-confidence": "0.75",
    "recall.budget": "400",
    "recall.top-k": "4",
    "recall.task-types": '["code-gen", "qa"]',
    "learning.archive-floor": "0.25",
    "learning.decay-days": "45",
    "promote.auto-after": '"36h"',
}
BAD = {
    "capture.min-tool-calls": "-1",
    "capture.max-candidates": "0",
    "capture.min-confidence": "1.5",
    "recall.budget": '"200"',
    "recall.top-k": "true",
    "recall.task-types": '["code-gen", "coding"]',
    "learning.archive-floor": "-0.1",
    "learning.decay-days": "0",
    "promote.auto-after": '"7 days"',
}


def test_every_key_is_tested_and_documented() -> None:
    names = {f"{section}.{key}" for section, key in KEYS}
    assert names == set(GOOD) == set(BAD)
    docs = (REPO_ROOT / "docs" / "learning.md").read_text(encoding="utf-8")
    for section, key in KEYS:
        assert re.search(rf"`{section}\.{key}`", docs), f"{section}.{key} is not in docs/learning.md"


@pytest.mark.parametrize("name", sorted(GOOD))
def test_each_key_takes_a_good_value(loc: Locations, name: str) -> None:
    section, key = name.split(".")
    write(loc.project_dir / "config.toml", f"[{section}]\n{key} = {GOOD[name]}\n")
    field = KEYS[(section, key)][0]
    assert getattr(config.load(loc), field) != getattr(DEFAULTS, field)


@pytest.mark.parametrize("name", sorted(BAD))
def test_each_key_refuses_a_bad_value_naming_file_and_key(loc: Locations, name: str) -> None:
    section, key = name.split(".")
    path = write(loc.project_dir / "config.toml", f"[{section}]\n{key} = {BAD[name]}\n")
    with pytest.raises(ConfigError) as caught:
        config.load(loc)
    assert str(path) in str(caught.value)
    assert f"`{name}`" in str(caught.value)
    assert caught.value.exit_code == EXIT_USAGE


@pytest.mark.parametrize(
    ("text", "wanted"),
    [
        ("[recall]\ntopk = 3\n", "unknown key `recall.topk`"),
        ("[recal]\nbudget = 3\n", "unknown section [recal]"),
        ("budget = 3\n", "unknown section [budget]"),
        ("[recall\n", "not valid TOML"),
    ],
)
def test_unknown_keys_and_broken_files_are_errors(loc: Locations, text: str, wanted: str) -> None:
    path = write(loc.global_dir / "config.toml", text)
    with pytest.raises(ConfigError, match=re.escape(wanted)) as caught:
        config.load(loc)
    assert str(path) in str(caught.value)


def test_a_changed_file_is_read_again(loc: Locations) -> None:
    path = write(loc.project_dir / "config.toml", "[recall]\nbudget = 300\n")
    assert config.load(loc).budget == 300
    write(path, "[recall]\nbudget = 301\n")
    assert config.load(loc).budget == 301


def test_the_config_file_is_not_a_lesson(git_repo: Path, cli_invoke: Invoke) -> None:
    write(git_repo / ".reasonix" / "lessons" / "config.toml", "[recall]\nbudget = 300\n")
    cli_invoke("add", "a-lesson", "-d", "Run `npm test`", "--repo", git_repo)
    assert "config.toml" not in cli_invoke("validate", "--repo", git_repo).stderr
    assert [e["name"] for e in cli_invoke("list", "--json", "--repo", git_repo).json()] == ["a-lesson"]


def test_a_bad_config_exits_2_with_the_file_and_key(git_repo: Path, cli_invoke: Invoke) -> None:
    cli_invoke("add", "a-lesson", "-d", "Run `npm test`", "--repo", git_repo)
    write(git_repo / ".reasonix" / "lessons" / "config.toml", "[recall]\nbudget = 0\n")
    result = cli_invoke("recall", "add a unit test", "--repo", git_repo, expect=EXIT_USAGE)
    assert "config.toml: `recall.budget` = 0" in result.stderr
    result = cli_invoke("list", "--repo", git_repo, expect=EXIT_USAGE)
    assert "`recall.budget`" in result.stderr
    write(git_repo / ".reasonix" / "lessons" / "config.toml", "[capture]\nmin-tool-call = 1\n")
    log = REPO_ROOT / "tests" / "resources" / "learning" / "vitest-1.jsonl"
    for argv in (["capture", log], ["recall", "add a unit test"], ["list"]):
        result = cli_invoke(*argv, "--repo", git_repo, expect=EXIT_USAGE)
        assert "config.toml" in result.stderr
        assert "unknown key `capture.min-tool-call`" in result.stderr
