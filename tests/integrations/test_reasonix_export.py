"""`export reasonix`: Reasonix v2 memory facts (and skills), byte-exact, idempotent, withdrawn when stale.

What Reasonix 1.38.11 itself makes of these files is proven in test_reasonix_e2e.py."""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from reasonlessons.integrations import reasonix_facts as rf
from reasonlessons.integrations.reasonix_export import MANIFEST, ExportReport, export_reasonix, memory_dir
from reasonlessons.lessons.locations import Locations
from reasonlessons.sessions import workspaces
from reasonlessons.sessions.discovery import reasonix_slug, reasonix_state_root
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


def frontmatter(text: str) -> dict[str, Any]:
    """The frontmatter as a YAML parser reads it (Reasonix 1.38 parses it with Go's yaml.v3)."""
    lines = text.split("\n")
    assert lines[0] == "---"
    end = lines.index("---", 1)
    doc = yaml.safe_load("\n".join(lines[1:end]))
    assert isinstance(doc, dict)
    return doc


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
    fm = frontmatter(ours)
    assert fm["name"] == "pkg-manager"
    assert fm["metadata"] == {"type": "project", "scope": "project"}
    assert fm["description"] == '"Package manager": npm, never yarn'  # what Reasonix reads back
    index_lines = [ln for ln in (FIXTURE_MEMORY / "MEMORY.md").read_text().split("\n") if ln.startswith("- ")]
    assert all(rf.INDEX_LINE.match(line) for line in index_lines)
    assert all(
        rf.INDEX_LINE.match(line) for line in (project_dir / "MEMORY.md").read_text().split("\n")[2::2]
    )


def test_values_are_one_inert_line() -> None:
    assert (
        rf.flat('  "quoted"\n\tmulti   line\x1b[31m red  ') == '"quoted" multi line red'
    )  # the emitter quotes
    assert rf.title_of("a [link](x) " + "word " * 40).startswith("a [link] (x)")
    assert len(rf.title_of("word " * 40)) <= rf.TITLE_CHARS
    assert rf.keywords_of(["vitest", "Vitest", "a, b", "  "]) == "vitest, a b"
    assert rf.fact_slug("pkg.manager_v2") == "pkg-manager-v2"


def test_state_root_and_slug() -> None:
    home = Path("/home/me")
    assert reasonix_state_root({}, home, windows=False) == home / ".reasonix"
    assert reasonix_state_root({"REASONIX_HOME": "/rx"}, home) == Path("/rx")
    assert reasonix_state_root({"REASONIX_HOME": "/rx", "REASONIX_STATE_HOME": "/state"}, home) == Path(
        "/state"
    )
    assert reasonix_slug(Path("/Users/me/proj")) == "-Users-me-proj"
    assert reasonix_slug(Path("C:\\src\\app")) == "C--src-app"
    env = {"REASONIX_HOME": "/rx", "REASONIX_STATE_HOME": "/state"}
    assert memory_dir(Path("/p"), "project", env=env, home=home) == Path("/state/projects/-p/memory")


# -- idempotence, updates, withdrawal -------------------------------------------------------------


def test_re_export_is_byte_identical(repo: Path) -> None:
    export(repo)
    project_dir, global_dir = dirs(repo)
    before = {p: p.read_bytes() for d in (project_dir, global_dir) for p in d.iterdir()}
    stamps = {p: p.stat().st_mtime_ns for d in (project_dir, global_dir) for p in d.iterdir()}
    report = export(repo, now=LATER)
    assert report.written == report.withdrawn == []
    assert len(report.unchanged) == 3
    assert {p: p.read_bytes() for d in (project_dir, global_dir) for p in d.iterdir()} == before
    assert {p: p.stat().st_mtime_ns for d in (project_dir, global_dir) for p in d.iterdir()} == stamps


def test_a_changed_lesson_is_a_new_revision(repo: Path) -> None:
    export(repo)
    lesson = project(repo).store.find("testing")
    lesson.body += "\n- run one file: `npx vitest run tests/a.test.ts`"
    project(repo).store.save(lesson)
    report = export(repo, now=LATER)
    assert [(i.name, i.revision) for i in report.written] == [("testing", 2)]
    fm = frontmatter((dirs(repo)[0] / "testing.md").read_text())
    assert (fm["revision"], fm["id"]) == (2, rf.fact_id("project", "testing"))
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
    # Where Reasonix's own `forget` puts a fact, named as it names them.
    archived = project_dir / ".archive" / "20261122-080000.000-testing.md"
    assert frontmatter(archived.read_text())["id"] == rf.fact_id("project", "testing")
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


def test_skills_read_back_as_written(repo: Path) -> None:
    export(repo, skills=True)
    skills = repo / ".reasonix" / "skills"
    # A description YAML reads as written stays unquoted: Reasonix v1's flat parser reads it too.
    assert (skills / "testing.md").read_bytes() == (GOLDEN / "skills" / "testing.md").read_bytes()
    fm = frontmatter((skills / "pkg.manager.md").read_text())
    assert fm == {"name": "pkg.manager", "description": 'Lesson — "Package manager": npm, never yarn'}
    assert not (skills / "commit-style.md").exists()  # global lessons are not project skills
    assert export(repo, skills=True, now=LATER).written == []
    (skills / "pkg.manager.md").write_text("---\nname: pkg.manager\ndescription: edited\n---\n")
    (repo / "package.json").write_text('{"name": "demo", "scripts": {"test": "jest"}}\n')
    project(repo).store.remove("pkg.manager")
    report = export(repo, skills=True, now=LATER)
    assert {(i.name, i.kind) for i in report.withdrawn} >= {("testing", "skill")}
    assert not (skills / "testing.md").exists()
    assert (skills / ".archive" / "20261122-080000.000-testing.md").is_file()  # skipped by Reasonix
    assert (skills / "pkg.manager.md").exists()  # edited by hand: left alone


def test_skills_follow_an_earlier_skills_export_when_asked_to(repo: Path) -> None:
    skills = repo / ".reasonix" / "skills"
    export(repo, skills=None)  # the hooks' mode: skills only where an export made them before
    assert not skills.exists()
    export(repo, skills=True)
    (repo / "package.json").write_text('{"name": "demo", "scripts": {"test": "jest"}}\n')
    report = export(repo, skills=None, now=LATER)
    assert ("testing", "skill") in {(i.name, i.kind) for i in report.withdrawn}


# -- whatever the text says ----------------------------------------------------------------------

AWKWARD = [
    *(f"{c}x marks the spot" for c in "`@{[*->|%?&!'\""),
    "Note: `npm test` runs vitest",
    "Run make #fast, not make all",
    "Ends with a colon:",
    "yes",
    "12:30",
    "tab\there and é ü 漢字",
]


@pytest.mark.parametrize("description", AWKWARD)
def test_a_description_reads_back_unchanged_whatever_it_starts_with(repo: Path, description: str) -> None:
    store = project(repo).store
    store.add("awkward", description=description, body="- body", extra={"tags": ["x: y", "#z"]})
    export(repo, skills=True)
    fact = (dirs(repo)[0] / "awkward.md").read_text()
    fm = frontmatter(fact)
    expected = " ".join(description.split())
    assert (fm["description"], fm["title"]) == (expected, expected)
    assert fm["keywords"] == "x: y, #z"
    assert fm["id"] == rf.fact_id("project", "awkward")
    assert fm["revision"] == 1
    assert all(line == line.strip("\r") for line in fact.split("\n"))
    line = next(ln for ln in (dirs(repo)[0] / "MEMORY.md").read_text().split("\n") if "(awkward.md)" in ln)
    assert rf.INDEX_LINE.match(line)
    assert line.endswith("] " + expected)
    skill = frontmatter((repo / ".reasonix" / "skills" / "awkward.md").read_text())
    assert skill == {"name": "awkward", "description": f"Lesson — {expected}"}


def test_keywords_name_what_a_message_would_say(repo: Path) -> None:
    (repo / "tsconfig.json").write_text("{}\n")
    project(repo).store.add(
        "typecheck",
        description="Type-check with tsc",
        fingerprint=["tsconfig.json", "package.json#scripts.typecheck", "src/**/*.ts"],
        body="- `npx tsc --noEmit`",
        extra={"triggers": {"commands": [r"\btsc\b", r"npm (run )?typecheck"], "keywords": ["types"]}},
    )
    export(repo)
    fm = frontmatter((dirs(repo)[0] / "typecheck.md").read_text())
    words = fm["keywords"].split(", ")
    assert words == [
        "types",
        "tsc",
        "npm",
        "run",
        "typecheck",
        "tsconfig.json",
        "package.json",
        "scripts.typecheck",
    ]
    assert fm["subject_key"] == "reasonlessons.typecheck"


# -- the repository under other names --------------------------------------------------------------


def test_every_spelling_of_the_repository_gets_the_facts_and_loses_them(repo: Path, tmp_path: Path) -> None:
    link = tmp_path / "link"
    link.symlink_to(repo)
    report = export(repo, workspaces_seen=[link])
    via_link = memory_dir(
        link, "project", env={"REASONIX_HOME": str(Locations.discover(repo).home)}, home=Path.home()
    )
    assert report.workspace_dirs == [str(via_link)]
    assert sorted(p.name for p in via_link.glob("*.md")) == ["MEMORY.md", "pkg-manager.md", "testing.md"]
    assert workspaces.recorded(repo) == [link]
    assert export(repo, now=LATER).written == []  # remembered: kept in line without being told again
    link.unlink()
    link.symlink_to(tmp_path)  # the spelling names another directory now: our facts leave it
    report = export(repo, now=LATER)
    assert {(i.name, i.path) for i in report.withdrawn} == {
        ("testing", str(via_link / "testing.md")),
        ("pkg.manager", str(via_link / "pkg-manager.md")),
    }
    assert sorted(p.name for p in dirs(repo)[0].glob("*.md")) == ["MEMORY.md", "pkg-manager.md", "testing.md"]


# -- the command ----------------------------------------------------------------------------------


def test_command_line(cli_invoke: Callable[..., Any], repo: Path) -> None:
    doc = cli_invoke("export", "reasonix", "--json", "--repo", repo).json()
    assert list(doc) == ["memory_dirs", "workspace_dirs", "written", "unchanged", "withdrawn", "skipped"]
    assert {"name": "testing", "scope": "project", "kind": "fact"}.items() <= doc["written"][1].items()
    text = cli_invoke("export", "reasonix", "--repo", repo).stdout
    assert "0 written, 3 unchanged, 0 withdrawn, 0 skipped" in text
    assert "unknown export target" in cli_invoke("export", "cursor", "--repo", repo, expect=2).stderr
    assert "--scope" in cli_invoke("export", "reasonix", "--scope", "x", "--repo", repo, expect=2).stderr


def test_an_unchanged_lesson_is_not_scanned_or_rendered_again(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    export(repo, skills=True)

    def scanner(value: Any) -> Any:
        raise AssertionError("redacted again")

    monkeypatch.setattr("reasonlessons.integrations.reasonix_facts.redact_value", scanner)
    report = export(repo, skills=True, now=LATER)  # the hooks do this at every session's start and end
    assert report.written == report.withdrawn == []
    assert report.descriptions[("project", "testing")] == "Test runner + file convention"
    lesson = project(repo).store.find("testing")
    lesson.body += "\n- more"
    project(repo).store.save(lesson)
    with pytest.raises(AssertionError, match="redacted again"):
        export(repo, skills=True, now=LATER)
