"""`export reasonix`: Reasonix v2 memory facts (and skills), byte-exact, idempotent, withdrawn when stale."""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from reasonlessons.integrations import reasonix_facts as rf
from reasonlessons.integrations.reasonix_export import (
    MANIFEST,
    ExportReport,
    export_reasonix,
    memory_dir,
    state_root,
    workspace_slug,
)
from reasonlessons.lessons.locations import Locations
from reasonlessons.store.project import Project
from tests.paths import RESOURCES, SHARED_FIXTURES
from tests.repos import git

GOLDEN = RESOURCES / "integrations" / "reasonix"
FIXTURE_MEMORY = SHARED_FIXTURES / "reasonix-v2" / "memory"
CAPTURED = dt.datetime(2026, 5, 5, 9, 0, tzinfo=dt.UTC)
EXPORTED = dt.datetime(2026, 11, 21, 19, 23, 5, 907144, tzinfo=dt.UTC)
LATER = dt.datetime(2026, 11, 22, 8, 0, 0, 1, tzinfo=dt.UTC)


def project(repo: Path, now: dt.datetime = CAPTURED) -> Project:
    return Project(Locations.discover(repo), now=lambda: now)


def export(repo: Path, now: dt.datetime = EXPORTED, **options: Any) -> ExportReport:
    return export_reasonix(project(repo), now=now, **options)


@pytest.fixture
def repo(git_repo: Path) -> Path:
    (git_repo / "package.json").write_text('{"name": "demo", "scripts": {"test": "vitest run"}}\n')
    (git_repo / "package-lock.json").write_text("{}\n")
    (git_repo / "tests").mkdir()
    (git_repo / "tests" / "a.test.ts").write_text("it('works', () => {})\n")
    git(git_repo, "add", "-A")
    git(git_repo, "commit", "-q", "-m", "demo")
    store = project(git_repo).store
    store.add(
        "testing",
        description="Test runner + file convention",
        fingerprint=["package.json#scripts.test", "tests/"],
        body="- vitest, tests/**/*.test.ts, run via `npm test`\n"
        "- import style: .js suffix even for .ts source",
        extra={"triggers": {"keywords": ["vitest", "npm test"], "files": ["tests/**"]}, "tags": ["testing"]},
    )
    store.add(
        "pkg.manager",
        description='"Package manager": npm, never yarn',
        fingerprint=["package-lock.json"],
        body="Uses npm (package-lock.json present).",
        extra={"expires-at": dt.date(2027, 12, 31), "tags": ["npm", "package manager"]},
    )
    store.add("old-way", description="Deprecated advice", body="- mocha", extra={"status": "deprecated"})
    store.add("gone", description="Expired advice", body="- x", extra={"expires-at": dt.date(2026, 6, 1)})
    store.add("maybe", description="A candidate", body="- not yet", scope="candidate")
    store.add(
        "commit-style",
        description="Commit messages: imperative mood",
        body="- `Add x`, not `Added x`",
        scope="global",
    )
    return git_repo


def dirs(repo: Path) -> tuple[Path, Path]:
    env = {"REASONIX_HOME": str(Locations.discover(repo).home)}
    root = Locations.discover(repo).root
    return (
        memory_dir(root, "project", env=env, home=Path.home()),
        memory_dir(root, "global", env=env, home=Path.home()),
    )


def reasonix_split(text: str) -> dict[str, str]:
    """Reasonix's own frontmatter reader (internal/frontmatter.Split), ported line for line."""
    fm: dict[str, str] = {}
    lines = text.replace("\r\n", "\n").split("\n")
    assert lines[0].strip() == "---"
    end = next(i for i in range(1, len(lines)) if lines[i].strip() == "---")
    content = lines[1:end]
    j = 0
    while j < len(content):
        key, sep, value = content[j].partition(":")
        if sep:
            value = value.strip().strip("\"'")
            if value:
                fm[key.strip().lower()] = value
            else:
                items = []
                while j + 1 < len(content) and content[j + 1].strip().startswith("-"):
                    items.append(content[j + 1].strip()[1:].strip().strip("\"'"))
                    j += 1
                if items:
                    fm[key.strip().lower()] = ", ".join(items)
        j += 1
    return fm


# -- the exact format ---------------------------------------------------------------------------


def test_export_writes_the_golden_files(repo: Path) -> None:
    report = export(repo)
    project_dir, global_dir = dirs(repo)
    assert sorted(p.name for p in project_dir.glob("*.md")) == ["MEMORY.md", "pkg-manager.md", "testing.md"]
    assert sorted(p.name for p in global_dir.glob("*.md")) == ["MEMORY.md", "commit-style.md"]
    for name in ("testing.md", "pkg-manager.md", "MEMORY.md"):
        assert (project_dir / name).read_bytes() == (GOLDEN / "project" / name).read_bytes(), name
    for name in ("commit-style.md", "MEMORY.md"):
        assert (global_dir / name).read_bytes() == (GOLDEN / "global" / name).read_bytes(), name
    assert [(i.name, i.scope, i.revision) for i in report.written] == [
        ("pkg.manager", "project", 1),
        ("testing", "project", 1),
        ("commit-style", "global", 1),
    ]
    assert report.unchanged == report.withdrawn == report.skipped == []


@pytest.mark.skipif(not FIXTURE_MEMORY.is_dir(), reason="shared Reasonix v2 fixtures not present")
def test_facts_have_the_shape_reasonix_wrote(repo: Path) -> None:
    export(repo)
    project_dir, _ = dirs(repo)
    reference = (FIXTURE_MEMORY / "pkg-manager-a.md").read_text()  # every optional key, as Reasonix wrote it
    order = [line.split(":")[0] for line in reference.split("---")[1].strip().split("\n")]
    ours = (project_dir / "pkg-manager.md").read_text()
    keys = [line.split(":")[0] for line in ours.split("---")[1].strip().split("\n")]
    assert keys == order  # every key, in Reasonix's canonical order, indentation included
    fewer = (project_dir / "testing.md").read_text().split("---")[1].strip().split("\n")
    assert [k for k in order if k in {line.split(":")[0] for line in fewer}] == [
        ln.split(":")[0] for ln in fewer
    ]
    assert ours.split("---\n", 2)[2].startswith("\n")  # a blank line, then the body
    for line, theirs in zip(ours.split("\n"), reference.split("\n"), strict=False):
        if line.startswith(("created_at", "updated_at")):
            assert re.fullmatch(r'[a-z_]+: "\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z"', line)
            assert re.fullmatch(r'[a-z_]+: "\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z"', theirs)
    fm = reasonix_split(ours)
    assert fm["name"] == "pkg-manager"
    assert fm["type"] == "project"
    assert fm["scope"] == "project"
    assert fm["description"] == 'Package manager": npm, never yarn'  # what Reasonix reads back
    index_lines = [ln for ln in (FIXTURE_MEMORY / "MEMORY.md").read_text().split("\n") if ln.startswith("- ")]
    assert all(rf.INDEX_LINE.match(line) for line in index_lines)
    assert all(
        rf.INDEX_LINE.match(line) for line in (project_dir / "MEMORY.md").read_text().split("\n")[2::2]
    )


def test_values_are_one_inert_line_without_edge_quotes() -> None:
    assert rf.flat('  "quoted"\n\tmulti   line\x1b[31m red  ') == 'quoted"\nmulti line red'.replace("\n", " ")
    assert rf.title_of("a [link](x) " + "word " * 40).startswith("a (link)(x)")
    assert len(rf.title_of("word " * 40)) <= rf.TITLE_CHARS
    assert rf.keywords_of(["vitest", "Vitest", "a, b", "  "]) == "vitest, a b"
    assert rf.fact_slug("pkg.manager_v2") == "pkg-manager-v2"


def test_state_root_and_slug() -> None:
    home = Path("/home/me")
    assert state_root({}, home) == home / ".reasonix"
    assert state_root({"REASONIX_HOME": "/rx"}, home) == Path("/rx")
    assert state_root({"REASONIX_HOME": "/rx", "REASONIX_STATE_HOME": "/state"}, home) == Path("/state")
    assert workspace_slug(Path("/Users/me/proj")) == "-Users-me-proj"
    assert workspace_slug(Path("C:\\src\\app")) == "C--src-app"


# -- idempotence, updates, withdrawal -------------------------------------------------------------


def test_re_export_is_byte_identical(repo: Path) -> None:
    export(repo)
    project_dir, global_dir = dirs(repo)
    before = {p: p.read_bytes() for d in (project_dir, global_dir) for p in d.iterdir()}
    report = export(repo, now=LATER)
    assert report.written == report.withdrawn == []
    assert len(report.unchanged) == 3
    assert {p: p.read_bytes() for d in (project_dir, global_dir) for p in d.iterdir()} == before


def test_a_changed_lesson_is_a_new_revision(repo: Path) -> None:
    export(repo)
    lesson = project(repo).store.find("testing")
    lesson.body += "\n- run one file: `npx vitest run tests/a.test.ts`"
    project(repo).store.save(lesson)
    report = export(repo, now=LATER)
    assert [(i.name, i.revision) for i in report.written] == [("testing", 2)]
    fm = reasonix_split((dirs(repo)[0] / "testing.md").read_text())
    assert (fm["revision"], fm["id"]) == ("2", rf.fact_id("project", "testing"))
    assert fm["created_at"] == "2026-11-21T19:23:05.907144000Z"
    assert fm["updated_at"] == "2026-11-22T08:00:00.000001000Z"
    assert export(repo, now=LATER + dt.timedelta(days=1)).written == []


def test_a_stale_lesson_is_withdrawn_and_other_index_lines_are_kept(repo: Path) -> None:
    export(repo)
    project_dir, _ = dirs(repo)
    index = project_dir / "MEMORY.md"
    theirs = "- [Their fact](their-fact.md) — [project/project] written by Reasonix"
    index.write_text(index.read_text() + "\nHand-written note.\n\n" + theirs + "\n")
    (project_dir / "their-fact.md").write_text("---\nid: legacy-1\nrevision: 1\nname: their-fact\n---\n\nx\n")
    (repo / "package.json").write_text('{"name": "demo", "scripts": {"test": "jest"}}\n')  # testing drifts
    report = export(repo, now=LATER)
    assert [(i.name, i.kind) for i in report.withdrawn] == [("testing", "fact")]
    assert not (project_dir / "testing.md").exists()
    assert (project_dir / "their-fact.md").exists()
    text = index.read_text()
    assert "(testing.md)" not in text
    assert "(pkg-manager.md)" in text
    assert "Hand-written note." in text
    assert theirs in text
    assert "\n\n\n" not in text
    assert "testing" not in json.loads((project_dir / MANIFEST).read_text())["data"]["facts"]


def test_removed_expired_and_superseded_lessons_are_withdrawn(repo: Path) -> None:
    export(repo)
    project(repo).store.remove("commit-style", scope="global")
    lesson = project(repo).store.find("pkg.manager")
    lesson.meta["expires-at"] = dt.date(2026, 11, 1)
    project(repo).store.save(lesson)
    report = export(repo, now=LATER)
    assert sorted(i.name for i in report.withdrawn) == ["commit-style", "pkg.manager"]
    project_dir, global_dir = dirs(repo)
    assert (global_dir / "MEMORY.md").read_text() == "# Memory\n"
    assert sorted(p.name for p in project_dir.glob("*.md")) == ["MEMORY.md", "testing.md"]


def test_files_we_do_not_own_are_never_touched(repo: Path) -> None:
    project_dir, _ = dirs(repo)
    project_dir.mkdir(parents=True)
    foreign = b"---\nid: legacy-13acc1477294aad54718771e\nrevision: 3\nname: testing\n---\n\nmine\n"
    (project_dir / "testing.md").write_bytes(foreign)
    report = export(repo)
    assert [(i.name, i.kind) for i in report.skipped] == [("testing", "fact")]
    assert (project_dir / "testing.md").read_bytes() == foreign
    assert "(testing.md)" not in (project_dir / "MEMORY.md").read_text()
    # ...and a fact of ours that someone replaced is left in place when its lesson goes.
    export(repo)
    (project_dir / "pkg-manager.md").write_bytes(foreign.replace(b"testing", b"pkg-manager"))
    project(repo).store.remove("pkg.manager")
    report = export(repo, now=LATER)
    assert [i.reason for i in report.skipped if i.name == "pkg.manager"] == [
        "replaced outside reasonlessons; left in place"
    ]
    assert (project_dir / "pkg-manager.md").exists()


def test_a_fact_forgotten_in_reasonix_comes_back_as_a_new_revision(repo: Path) -> None:
    export(repo)
    project_dir, _ = dirs(repo)
    (project_dir / "testing.md").unlink()
    report = export(repo, now=LATER)
    assert [(i.name, i.revision) for i in report.written] == [("testing", 2)]


def test_names_that_share_a_slug_stay_apart(repo: Path) -> None:
    project(repo).store.add("pkg-manager", description="Another lesson", body="- y")
    export(repo)
    names = sorted(p.stem for p in dirs(repo)[0].glob("*.md"))
    assert names[:2] == ["MEMORY", "pkg-manager"]
    assert re.fullmatch(r"pkg-manager-[0-9a-f]{6}", names[2])
    assert names[3] == "testing"


def test_scope_project_leaves_the_global_directory_alone(repo: Path) -> None:
    report = export(repo, scope="project")
    assert set(report.memory_dirs) == {"project"}
    assert not dirs(repo)[1].exists()


# -- skills ---------------------------------------------------------------------------------------


def test_skills_in_the_weakest_parser_form(repo: Path) -> None:
    export(repo, skills=True)
    skills = repo / ".reasonix" / "skills"
    assert (skills / "testing.md").read_bytes() == (GOLDEN / "skills" / "testing.md").read_bytes()
    head = (skills / "pkg.manager.md").read_text().split("---")[1].strip().split("\n")
    assert [line.split(": ", 1)[0] for line in head] == ["name", "description"]
    assert all('"' not in line[:14] and "'" not in line for line in head)
    assert not (skills / "commit-style.md").exists()  # global lessons are not project skills
    assert export(repo, skills=True, now=LATER).written == []
    (skills / "pkg.manager.md").write_text("---\nname: pkg.manager\ndescription: edited\n---\n")
    (repo / "package.json").write_text('{"name": "demo", "scripts": {"test": "jest"}}\n')
    project(repo).store.remove("pkg.manager")
    report = export(repo, skills=True, now=LATER)
    assert {(i.name, i.kind) for i in report.withdrawn} >= {("testing", "skill")}
    assert not (skills / "testing.md").exists()
    assert (skills / "pkg.manager.md").exists()  # edited by hand: left alone


# -- the command ----------------------------------------------------------------------------------


def test_command_line(cli_invoke: Callable[..., Any], repo: Path) -> None:
    doc = cli_invoke("export", "reasonix", "--json", "--repo", repo).json()
    assert list(doc) == ["memory_dirs", "written", "unchanged", "withdrawn", "skipped"]
    assert {"name": "testing", "scope": "project", "kind": "fact"}.items() <= doc["written"][1].items()
    text = cli_invoke("export", "reasonix", "--repo", repo).stdout
    assert "0 written, 3 unchanged, 0 withdrawn, 0 skipped" in text
    assert "unknown export target" in cli_invoke("export", "cursor", "--repo", repo, expect=2).stderr
    assert "--scope" in cli_invoke("export", "reasonix", "--scope", "x", "--repo", repo, expect=2).stderr
