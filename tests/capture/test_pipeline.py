from __future__ import annotations

import datetime as dt
import json
import os
import shutil
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from reasonlessons.capture import sources
from reasonlessons.capture.checkpoint import Checkpoints
from reasonlessons.capture.pipeline import CaptureReport, capture
from reasonlessons.capture.writer import recorded_evidence
from reasonlessons.errors import UsageError
from reasonlessons.lessons.file import read_lesson
from reasonlessons.store.project import Project, open_project
from tests.capturesupport import CAPTURE
from tests.paths import EXAMPLE, RESOURCES
from tests.repos import git

NOW = dt.datetime(2026, 5, 6, 12, 0, tzinfo=dt.UTC)
V1 = CAPTURE / "reasonix-v1"


def _project(repo: Path) -> Project:
    return open_project(repo, now=lambda: NOW)


def _copy_v1(name: str, into: Path) -> Path:
    """Copy a v1 event log with its sidecar and meta file; returns the event log's path."""
    into.mkdir(parents=True, exist_ok=True)
    for suffix in (".events.jsonl", ".jsonl", ".meta.json"):
        shutil.copy(V1 / f"{name}{suffix}", into / f"{name}{suffix}")
    return into / f"{name}.events.jsonl"


def _run(repo: Path, *paths: Path, **kwargs: object) -> CaptureReport:
    kwargs.setdefault("now", NOW)
    return capture(_project(repo), list(paths), **kwargs)  # type: ignore[arg-type]


def _wall() -> dt.datetime:
    """The real clock, for tests about how long ago a log file was last written."""
    return dt.datetime.now(dt.UTC)


def _candidates(repo: Path) -> dict[str, Path]:
    folder = repo / ".reasonix" / "lessons" / "_candidates"
    return {p.stem: p for p in sorted(folder.glob("*.md"))} if folder.is_dir() else {}


def _snapshot(repo: Path) -> dict[str, tuple[int, bytes]]:
    return {
        str(p.relative_to(repo)): (p.stat().st_mtime_ns, p.read_bytes())
        for p in (repo / ".reasonix").rglob("*")
        if p.is_file() and not p.name.endswith(".lock")
    }


def _all_candidates_whole(repo: Path) -> None:
    """No half-written candidate: every file parses, no temp file is left behind."""
    folder = repo / ".reasonix" / "lessons" / "_candidates"
    for path in folder.glob("*") if folder.is_dir() else []:
        assert not path.name.startswith("."), f"left-over temp file {path}"
        read_lesson(path)


def test_failure_derived_candidate_goes_stale_when_its_script_changes(
    make_repo: Callable[[str], Path], tmp_path: Path
) -> None:
    repo = make_repo("capture-node")
    log = _copy_v1("vitest-not-found", tmp_path / "logs")
    report = _run(repo, log)
    assert [(i.name, i.session) for i in report.written] == [
        ("npm-test-vitest-not-found", "vitest-not-found#1")
    ]
    lesson = read_lesson(_candidates(repo)["npm-test-vitest-not-found"], scope="candidate")
    assert "`npx vitest run`" in lesson.description
    assert "`npx vitest run`" in lesson.body
    assert "package.json#scripts.test" in lesson.fingerprint
    assert lesson.meta["source"] == "heuristic"
    assert lesson.meta["outcome"] == "mixed"
    assert lesson.meta["evidence"][0] == {
        "agent": "reasonix-v1",
        "session": "vitest-not-found#1",
        "ref": "vitest-not-found.events.jsonl:10",
    }
    project = _project(repo)
    assert project.drift(lesson) == []
    package = json.loads((repo / "package.json").read_text())
    package["scripts"]["test"] = "vitest run --coverage"
    (repo / "package.json").write_text(json.dumps(package, indent=2))
    drift = _project(repo).drift(lesson)
    assert [d.input for d in drift] == ["package.json#scripts.test"]


def test_rerunning_on_the_same_logs_writes_nothing(make_repo: Callable[[str], Path], tmp_path: Path) -> None:
    repo = make_repo("capture-node")
    logs = [_copy_v1(name, tmp_path / "logs") for name in ("vitest-not-found", "esm-fix")]
    first = _run(repo, *logs)
    assert first.written
    before = _snapshot(repo)
    again = _run(repo, *logs)
    assert (again.sessions, again.written, again.updated, again.unchanged) == (0, [], [], 2)
    assert _snapshot(repo) == before
    # Even with the checkpoints gone, the same sessions only find their own evidence again.
    (repo / ".reasonix" / "state" / "capture-checkpoints.json").unlink()
    third = _run(repo, *logs)
    assert third.sessions == 2
    assert third.written == []
    assert third.updated == []
    assert {k: v for k, v in _snapshot(repo).items() if "checkpoints" not in k} == {
        k: v for k, v in before.items() if "checkpoints" not in k
    }


def test_appended_bytes_are_read_incrementally_and_add_evidence(
    make_repo: Callable[[str], Path], tmp_path: Path
) -> None:
    repo = make_repo("capture-node")
    log = _copy_v1("vitest-not-found", tmp_path / "logs")
    _run(repo, log)
    size = log.stat().st_size
    with log.open("ab") as handle:  # a second launch of the same session name
        handle.write((V1 / "vitest-again.events.jsonl").read_bytes())
    report = _run(repo, log)
    assert report.written == []
    assert [(i.name, i.session) for i in report.updated] == [
        ("npm-test-vitest-not-found", "vitest-not-found#2")
    ]
    lesson = read_lesson(_candidates(repo)["npm-test-vitest-not-found"])
    assert {e["session"] for e in lesson.meta["evidence"]} == {"vitest-not-found#1", "vitest-not-found#2"}
    state = json.loads((repo / ".reasonix" / "state" / "capture-checkpoints.json").read_text())
    # The next read starts after the first launch.
    assert state["data"][Checkpoints.key(log)]["offset"] >= size


def test_promoted_duplicate_gets_evidence_in_local_state_not_in_its_file(
    make_repo: Callable[[str], Path], tmp_path: Path
) -> None:
    repo = make_repo("capture-node")
    project = _project(repo)
    promoted = project.store.add(
        "esm-imports",
        description="Relative imports take a .js suffix (module NodeNext)",
        fingerprint=["tsconfig.json#compilerOptions.module", "package.json#type"],
        body="- A missing suffix fails `npx tsc --noEmit` with TS2835.",
    )
    assert promoted.path is not None
    before = promoted.path.read_bytes()
    report = _run(repo, _copy_v1("esm-fix", tmp_path / "logs"))
    assert ("esm-imports", "project") in [(i.name, i.scope) for i in report.updated]
    assert promoted.path.read_bytes() == before
    evidence = recorded_evidence(project, "project", "esm-imports")
    assert evidence
    assert all(e["session"] == "esm-fix#1" for e in evidence)
    assert "typecheck-command" in [i.name for i in report.written]


def test_each_kind_of_candidate_recognises_itself_in_a_later_session(
    make_repo: Callable[[str], Path], tmp_path: Path
) -> None:
    repo = make_repo("capture-node")
    logs = [
        CAPTURE / "codex" / "rollout-2026-05-05T08-00-00-55555555-6666-4777-8888-999999999999.jsonl",
        CAPTURE / "claude-code" / "writ-and-correction.jsonl",
        CAPTURE / "claude-code" / "python-fixes.jsonl",
        V1 / "esm-fix.events.jsonl",
    ]
    first = _run(repo, *logs)
    assert first.written
    copies = []
    for log in logs:  # the same experiences, recorded again in other files
        copy = tmp_path / "again" / f"again-{log.name}"
        copy.parent.mkdir(exist_ok=True)
        shutil.copy(log, copy)
        for suffix in (".jsonl", ".meta.json"):
            companion = log.with_name(log.name.replace(".events.jsonl", suffix))
            if log.name.endswith(".events.jsonl") and companion.exists():
                shutil.copy(companion, copy.with_name(f"again-{companion.name}"))
        copies.append(copy)
    second = _run(repo, *copies)
    assert second.written == []
    assert {i.name for i in second.updated} == {i.name for i in first.written}


def test_rejected_candidates_are_not_proposed_again(make_repo: Callable[[str], Path], tmp_path: Path) -> None:
    repo = make_repo("capture-node")
    log = _copy_v1("vitest-not-found", tmp_path / "logs")
    _run(repo, log)
    _project(repo).store.reject("npm-test-vitest-not-found")
    again = _run(repo, _copy_v1("vitest-again", tmp_path / "logs"))
    assert again.written == []
    assert ("npm-test-vitest-not-found", "rejected before") in [(i.name, i.reason) for i in again.dropped]
    assert _candidates(repo) == {}


def test_sessions_with_fewer_than_three_tool_calls_teach_nothing(
    make_repo: Callable[[str], Path], tmp_path: Path
) -> None:
    repo = make_repo("capture-node")
    report = _run(repo, _copy_v1("short", tmp_path / "logs"))
    assert report.written == []
    assert report.sessions == 1
    assert [(i.name, i.reason) for i in report.skipped] == [("short#1", "fewer than 3 tool calls (2)")]


def test_secrets_never_reach_any_written_file(make_repo: Callable[[str], Path]) -> None:
    repo = make_repo("capture-node")
    report = _run(repo, CAPTURE / "claude-code" / "secrets.jsonl")
    assert "deploy-preview" in [i.name for i in report.written]
    text = _candidates(repo)["deploy-preview"].read_text()
    assert "[REDACTED:github-token]" in text
    for path in (repo / ".reasonix").rglob("*"):
        if path.is_file():
            assert b"ghp_0123456789" not in path.read_bytes(), path


def test_a_session_still_being_written_waits_for_its_end(
    make_repo: Callable[[str], Path], tmp_path: Path
) -> None:
    repo = make_repo("capture-node")
    log = _copy_v1("vitest-not-found", tmp_path / "logs")
    lines = log.read_bytes().splitlines(keepends=True)
    log.write_bytes(b"".join(lines[:-1]))  # the closing model.final is not written yet
    report = _run(repo, log, now=_wall())
    assert report.written == []
    assert [i.reason for i in report.skipped] == ["still being written (not in a terminal state yet)"]
    again = _run(repo, log, now=_wall())  # nothing new, still open: no read at all
    assert again.written == []
    assert [i.reason for i in again.skipped] == ["last session still being written"]
    with log.open("ab") as handle:
        handle.write(lines[-1])
    done = _run(repo, log, now=_wall())
    assert [i.name for i in done.written] == ["npm-test-vitest-not-found"]


def test_a_quiet_log_counts_as_ended(make_repo: Callable[[str], Path], tmp_path: Path) -> None:
    repo = make_repo("capture-node")
    log = _copy_v1("vitest-not-found", tmp_path / "logs")
    lines = log.read_bytes().splitlines(keepends=True)
    log.write_bytes(b"".join(lines[:-1]))
    _old(log)
    report = _run(repo, log, now=_wall())
    assert [i.name for i in report.written] == ["npm-test-vitest-not-found"]


def _insert(log: Path, line: bytes, *, at: int = 3) -> None:
    lines = log.read_bytes().splitlines(keepends=True)
    log.write_bytes(b"".join([*lines[:at], line, *lines[at:]]))


def _old(path: Path) -> None:
    stamp = (_wall() - dt.timedelta(days=1)).timestamp()
    os.utime(path, (stamp, stamp))


BAD_LINES: dict[str, tuple[bytes, str]] = {
    "non-json": (b"this line is not JSON at all\n", "not-json"),
    "invalid-utf8": (b'{"id":50,"turn":1,"type":"status","text":"caf\xe9"}\n', "invalid-utf8"),
    "unknown-type": (b'{"id":51,"ts":"2026-05-01T10:00:00Z","turn":1,"type":"brand.new"}\n', "unknown-type"),
    "orphan-result": (
        b'{"id":52,"ts":"2026-05-01T10:00:00.500Z","turn":1,"type":"tool.result","callId":"tc-9","ok":true,"output":"x"}\n',
        "orphan-result",
    ),
    "not-an-object": (b"[1, 2, 3]\n", "not-object"),
}  # fmt: skip


@pytest.mark.parametrize("case", sorted(BAD_LINES))
def test_damaged_lines_are_counted_and_skipped(
    case: str, make_repo: Callable[[str], Path], tmp_path: Path
) -> None:
    repo = make_repo("capture-node")
    log = _copy_v1("vitest-not-found", tmp_path / "logs")
    line, reason = BAD_LINES[case]
    _insert(log, line)
    report = _run(repo, log)
    assert report.damage[reason] == 1
    assert [i.name for i in report.written] == ["npm-test-vitest-not-found"]
    _all_candidates_whole(repo)


def test_a_50_mb_single_line_is_skipped_without_holding_it(
    make_repo: Callable[[str], Path], tmp_path: Path
) -> None:
    repo = make_repo("capture-node")
    log = _copy_v1("vitest-not-found", tmp_path / "logs")
    _insert(
        log,
        b'{"id":53,"ts":"2026-05-01T10:00:00.500Z","turn":1,"type":"status","text":"'
        + b"x" * (50 << 20)
        + b'"}\n',
    )
    report = _run(repo, log)
    assert report.damage["oversized-line"] == 1
    assert [i.name for i in report.written] == ["npm-test-vitest-not-found"]
    _all_candidates_whole(repo)


def test_a_truncated_last_line_means_still_writing_unless_the_log_went_quiet(
    make_repo: Callable[[str], Path], tmp_path: Path
) -> None:
    repo = make_repo("capture-node")
    log = _copy_v1("vitest-not-found", tmp_path / "logs")
    with log.open("ab") as handle:
        handle.write(b'{"id":99,"ts":"2026-05-01T10:0')
    report = _run(repo, log, now=_wall())
    assert report.damage["truncated-tail"] == 1
    assert report.written == []
    _old(log)
    later = _run(repo, log, now=_wall())
    assert [i.name for i in later.written] == ["npm-test-vitest-not-found"]
    _all_candidates_whole(repo)


def test_events_out_of_order_and_files_that_are_no_logs(
    make_repo: Callable[[str], Path], tmp_path: Path
) -> None:
    repo = make_repo("capture-node")
    logs = RESOURCES / "logs"
    report = _run(
        repo,
        logs / "reasonix-v1" / "sessions" / "out-of-order.events.jsonl",
        logs / "bad" / "not-a-log.png",
        logs / "bad" / "notes.md",
        tmp_path / "missing.jsonl",
    )
    reasons = {Path(i.name).name: i.reason for i in report.skipped}
    assert reasons["not-a-log.png"].startswith("not a session log of a known agent")
    assert reasons["notes.md"].startswith("not a session log")
    # A named path that does not exist is an error, not a skip (the CLI exits 1 naming it).
    assert [(Path(i.name).name, i.reason) for i in report.errors] == [
        ("missing.jsonl", "no such file or directory")
    ]
    _all_candidates_whole(repo)


def test_an_explicit_agent_that_does_not_fit_is_an_error_for_that_log(
    make_repo: Callable[[str], Path], tmp_path: Path
) -> None:
    repo = make_repo("capture-node")
    log = _copy_v1("vitest-not-found", tmp_path / "logs")
    report = _run(repo, log, agent="codex")
    assert report.written == []
    assert report.errors  # named, and unreadable as the agent it was named as
    assert "cannot read" in report.errors[0].reason
    with pytest.raises(UsageError):
        _run(repo, log, agent="no-such-agent")
    assert [i.name for i in _run(repo, log, agent="reasonix-v1").written] == ["npm-test-vitest-not-found"]


def test_without_paths_the_repos_sessions_are_discovered(
    make_repo: Callable[[str], Path], tmp_path: Path
) -> None:
    repo = make_repo("capture-node")
    home = tmp_path / "home"
    sessions = home / ".reasonix" / "sessions"
    _copy_v1("vitest-not-found", sessions)
    (sessions / "vitest-not-found.meta.json").write_text(json.dumps({"workspace": str(repo)}))
    _copy_v1("esm-fix", sessions)  # another workspace: not this repo's
    report = capture(_project(repo), None, env={}, home=home, now=NOW)
    assert [i.name for i in report.written] == ["npm-test-vitest-not-found"]
    assert report.files == 1


def test_progress_reports_bytes(make_repo: Callable[[str], Path], tmp_path: Path) -> None:
    repo = make_repo("capture-node")
    log = _copy_v1("vitest-not-found", tmp_path / "logs")
    seen: list[object] = []
    _run(repo, log, progress=seen.append)
    last = seen[-1]
    assert last.bytes_total == log.stat().st_size  # type: ignore[attr-defined]
    assert last.bytes_done == last.bytes_total
    assert last.files_done == 1


def test_the_readme_demo_on_the_example_repository(tmp_path: Path) -> None:
    demo = tmp_path / "demo"
    shutil.copytree(EXAMPLE, demo)
    promoted = {p.name: p.read_bytes() for p in (demo / ".reasonix" / "lessons").glob("*.md")}
    report = _run(demo, *sorted((demo / "sessions").glob("*.events.jsonl")))
    assert sorted(i.name for i in report.written) == ["build-output", "npm-test-vitest-not-found"]
    updated = {(i.name, i.scope) for i in report.updated}
    assert {
        ("esm-imports", "project"),
        ("test-layout", "project"),
        ("typecheck-command", "candidate"),
    } <= updated
    assert {p.name: p.read_bytes() for p in (demo / ".reasonix" / "lessons").glob("*.md")} == promoted
    again = _run(demo, *sorted((demo / "sessions").glob("*.events.jsonl")))
    assert again.written == []
    assert again.updated == []


def test_shared_fixtures_yield_few_specific_candidates(
    git_repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tests.paths import SHARED_FIXTURES

    if not SHARED_FIXTURES.is_dir():
        pytest.skip("shared fixtures are not available in this checkout")
    from reasonlessons.fingerprint import check_entry

    logs = sorted(
        p for p in SHARED_FIXTURES.rglob("*") if p.is_file() and p.suffix in (".jsonl", ".traj", ".json")
    )
    logs.append(SHARED_FIXTURES / "reasonix-v2" / "session-v4")
    report = _run(git_repo, *logs)
    short = {i.session for i in report.skipped if i.reason.startswith("fewer than")}
    with capsys.disabled():
        print(f"\n{report.sessions} sessions, {len(report.skipped)} skipped, {len(report.written)} written")
        for path in _candidates(git_repo).values():
            print(f"--- {path.name}\n{path.read_text()}")
    for path in _candidates(git_repo).values():
        lesson = read_lesson(path)
        assert lesson.meta["evidence"], path
        assert all(check_entry(entry) is None for entry in lesson.fingerprint)
        assert not {e["session"] for e in lesson.meta["evidence"]} & short
        text = path.read_text()
        assert "/Users/" not in text
        assert "\\Users\\" not in text
        assert "/home/" not in text
        assert len(lesson.body.splitlines()) <= 3
    assert len(report.written) <= 3  # these samples hold little worth keeping: stay quiet


def test_a_folder_stands_for_the_logs_at_any_depth(tmp_path: Path) -> None:
    """Codex keeps rollouts in `sessions/YYYY/MM/DD/`: naming `sessions` reads them all, and a log
    added deep down later is read by the next run (the unchanged-logs shortcut sees it too)."""
    from reasonlessons.capture import sources

    repo = tmp_path / "repo"
    repo.mkdir()
    sessions = tmp_path / "codex" / "sessions"
    rollout = sorted((CAPTURE / "codex").glob("rollout-*.jsonl"))[0]
    day = sessions / "2026" / "05" / "05"
    day.mkdir(parents=True)
    shutil.copy(rollout, day / rollout.name)
    (sessions / ".hidden").mkdir()
    shutil.copy(rollout, sessions / ".hidden" / rollout.name)  # hidden: not read
    v1 = _copy_v1("vitest-not-found", sessions / "v1")  # companions are read with their log
    first = _run(repo, sessions)
    assert first.files == 2
    assert sources.plain_files([sessions]) == [day / rollout.name, v1]
    later = sessions / "2026" / "05" / "06"
    later.mkdir()
    shutil.copy(rollout, later / "rollout-2026-05-06T08-00-00-55555555-6666-4777-8888-000000000000.jsonl")
    second = _run(repo, sessions)
    assert second.files == 3
    assert second.unchanged == 2


def test_a_long_run_killed_midway_resumes_from_what_it_saved(tmp_path: Path) -> None:
    """A long run saves its progress now and then (evidence first, then checkpoints): killed
    with no chance to clean up, the next run reads only the logs it had not finished."""
    import subprocess
    import sys

    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "package.json").write_text('{"scripts": {"test": "vitest run"}}\n')
    logs = tmp_path / "logs"
    names = ("assertion", "esm-fix", "vitest-again", "vitest-not-found")  # read in this order
    for name in names:
        _copy_v1(name, logs)
    for suffix in (".events.jsonl", ".jsonl", ".meta.json"):  # a fifth log, read last
        shutil.copy(V1 / f"short{suffix}", logs / f"zz-later{suffix}")
    script = (
        "import os, sys\n"
        "from pathlib import Path\n"
        "from reasonlessons.capture import pipeline\n"
        "from reasonlessons.store.project import open_project\n"
        "pipeline.SAVE_EVERY = 0.0\n"
        "def progress(state):\n"
        "    if state.path is None and state.files_done == 4:\n"
        "        os._exit(9)  # as SIGKILL: no finally, no flush\n"
        "pipeline.capture(open_project(Path(sys.argv[1])), [Path(sys.argv[2])], progress=progress, jobs=1)\n"
    )
    killed = subprocess.run([sys.executable, "-c", script, str(repo), str(logs)], check=False)
    assert killed.returncode == 9
    candidate = repo / ".reasonix" / "lessons" / "_candidates" / "npm-test-vitest-not-found.md"
    evidence = read_lesson(candidate, scope="candidate").meta["evidence"]
    # vitest-again wrote it, vitest-not-found's evidence was pending: saved before the kill.
    assert {e["session"] for e in evidence} == {"vitest-again#1", "vitest-not-found#1"}
    report = _run(repo, logs)
    assert report.files == 5
    assert report.unchanged == 4  # the logs applied before the kill are not read again
    again = read_lesson(candidate, scope="candidate").meta["evidence"]
    assert len(again) == len({(e["session"], e["ref"]) for e in again})  # nothing added twice


def test_a_log_named_after_a_secret_is_captured_and_checkpointed(
    make_repo: Callable[[str], Path], tmp_path: Path
) -> None:
    token = "ghp_" + "Zq8Lx2Vb7Nm4Kc1Wd9Pf3Hj6Rt5Ys0Ue8Ia2"
    repo = make_repo("capture-node")
    log = _copy_v1("vitest-not-found", tmp_path / "logs")
    named = log.with_name(f"{token}.events.jsonl")
    log.rename(named)
    (tmp_path / "logs" / "vitest-not-found.jsonl").rename(tmp_path / "logs" / f"{token}.jsonl")
    (tmp_path / "logs" / "vitest-not-found.meta.json").rename(tmp_path / "logs" / f"{token}.meta.json")
    first = _run(repo, named)
    assert first.written
    assert _run(repo, named).unchanged == 1  # the checkpoint is found again: nothing re-read
    for path in (repo / ".reasonix").rglob("*"):
        assert token not in path.name
        if path.is_file():
            assert token.encode() not in path.read_bytes(), path


def test_a_fifo_among_the_logs_is_skipped_with_a_reason_never_opened(
    make_repo: Callable[[str], Path], tmp_path: Path
) -> None:
    import threading

    repo = make_repo("capture-node")
    logs = tmp_path / "logs"
    _copy_v1("vitest-not-found", logs)
    fifo = logs / "zz-pipe.jsonl"
    os.mkfifo(fifo)
    reports: list[CaptureReport] = []
    for given in ([logs], [fifo]):
        worker = threading.Thread(target=lambda g=given: reports.append(_run(repo, *g)), daemon=True)
        worker.start()
        worker.join(timeout=60)
        assert not worker.is_alive(), "capture hangs on a FIFO"
    folder, named = reports
    assert folder.written
    assert any("FIFO" in item.reason for item in folder.skipped)
    assert [item.reason for item in named.skipped] == ["not a regular file (a FIFO): never read"]


WORKFLOW = [
    (
        "capture-elixir",
        ["claude-code/elixir-commit.jsonl"],
        {"commit-gate-mix-format", "git-commit-dialyzer-loop", "test-command"},
    ),
    (
        "capture-elixir",
        ["claude-code/elixir-setup.jsonl", "claude-code/elixir-setup"],
        {
            "claude-code-edit-string-not-found",
            "claude-code-read-too-large",
            "mix-env-test-mix-ecto-migrate-after-priv-repo",
            "mix-test-needs-mix-deps-get",
        },
    ),
    (
        "capture-go",
        ["codex/rollout-2026-05-07T08-00-00-bbbb3333-0000-4000-8000-000000000003.jsonl"],
        {
            "codex-patch-context-not-found",
            "git-default-branch-master",
            "go-test-needs-go-mod-tidy",
            "make-lint-return-value-of-w-write-is-not-loop",
        },
    ),
    (
        "capture-web",
        ["claude-code/web-workdir.jsonl"],
        {
            "claude-code-write-before-read",
            "git-force-add-dist",
            "node-build-js-from-assets",
            "test-command",
            "typecheck-command",
        },
    ),
    (
        "capture-py",
        ["claude-code/python-setup.jsonl", "claude-code/agent-c0de3.jsonl"],
        {
            "commit-gate-uv-run-ruff-check",
            "git-default-branch-master",
            "uv-run-alembic-upgrade-head-after-migrations",
            "uv-sync-after-pyproject-toml",
        },
    ),
    ("capture-web", ["claude-code/build-loop.jsonl"], {"npm-run-build-typeerror-cannot-read-properties"}),
    ("capture-py", ["claude-code/quiet.jsonl"], set()),
]


@pytest.mark.parametrize(("repo_name", "logs", "names"), WORKFLOW, ids=lambda v: str(v)[:30])
def test_workflow_lessons_in_four_ecosystems(
    make_repo: Callable[[str], Path], tmp_path: Path, repo_name: str, logs: list[str], names: set[str]
) -> None:
    repo = make_repo(repo_name)
    copied = []
    for log in logs:
        target = tmp_path / "logs" / log
        target.parent.mkdir(parents=True, exist_ok=True)
        (shutil.copytree if (CAPTURE / log).is_dir() else shutil.copy)(CAPTURE / log, target)
        copied.append(target)
    report = _run(repo, *copied)
    assert set(_candidates(repo)) == names
    assert report.sessions == 1  # a subagent's log is read with its session's, never on its own
    for path in _candidates(repo).values():
        text = path.read_text()
        for machine in ("/home/", "/Users/", "C:\\", "/c/Users", "/tmp/", ".claude/worktrees"):
            assert machine not in text, (path.name, machine)
    assert _run(repo, *copied).written == []


def test_a_tool_rule_seen_again_in_another_session_gains_evidence(
    make_repo: Callable[[str], Path], tmp_path: Path
) -> None:
    repo = make_repo("capture-elixir")
    logs = tmp_path / "logs"
    logs.mkdir()
    first = logs / "first.jsonl"
    shutil.copy(CAPTURE / "claude-code" / "elixir-setup.jsonl", first)
    second = logs / "second.jsonl"
    second.write_text(
        first.read_text().replace(
            "aaaa2222-0000-4000-8000-000000000002", "aaaa2222-0000-4000-8000-00000000000b"
        )
    )
    report = _run(repo, first, second)
    assert "claude-code-edit-string-not-found" in {i.name for i in report.updated}
    rule = read_lesson(_candidates(repo)["claude-code-edit-string-not-found"])
    assert {e["session"] for e in rule.meta["evidence"]} == {
        "aaaa2222-0000-4000-8000-000000000002",
        "aaaa2222-0000-4000-8000-00000000000b",
    }
    assert not [name for name in _candidates(repo) if name.endswith("-2")]


def test_an_aider_history_at_the_root_is_captured_without_naming_it(tmp_path: Path) -> None:
    """Discovery finds `.aider.chat.history.md`; a folder named on the command line keeps it too."""
    repo = tmp_path / "textkit"
    shutil.copytree(RESOURCES / "aider" / "textkit", repo)
    git(repo, "init", "-q")
    history = repo / ".aider.chat.history.md"
    shutil.copyfile(RESOURCES / "aider" / "textkit.aider.chat.history.md", history)
    old = time.time() - 3600
    os.utime(history, (old, old))
    project = open_project(repo, home=tmp_path / "home")
    report = capture(project, env={}, home=tmp_path / "home", idle_seconds=600)
    assert report.files == 1
    names = sorted(p.stem for p in project.loc.candidates_dir.glob("*.md"))
    assert "aider-no-such-command" in names
    assert "pytest-modulenotfounderror-no-module-named" in names
    assert sources.plain_files([repo]) is not None
    assert history in (sources.plain_files([repo]) or [])
