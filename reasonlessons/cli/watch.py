"""`reasonlessons watch`: run the daemon in the foreground, one line per event."""

from __future__ import annotations

import datetime as dt
import os
import signal
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer

import reasonlessons.watch
from reasonlessons.cli.app import RepoOption, app, open_project
from reasonlessons.cli.fast.helps import typer_help
from reasonlessons.constants import EXIT_INTERRUPTED
from reasonlessons.errors import UsageError
from reasonlessons.safety.terminal import json_bytes, visible
from reasonlessons.support import jsonio


@app.command("watch", **typer_help("watch"))
def watch(
    json: Annotated[
        bool, typer.Option("--json", help="One JSON object per line per event, flushed.")
    ] = False,
    poll: Annotated[
        bool, typer.Option("--poll", help="Poll the file system (for network and container mounts).")
    ] = False,
    idle_seconds: Annotated[
        float, typer.Option("--idle-seconds", help="Capture a session log once it is quiet this long.")
    ] = 60.0,
    debounce: Annotated[
        float, typer.Option("--debounce", help="Seconds of quiet before a burst of changes is checked.")
    ] = 0.2,
    export_reasonix: Annotated[
        bool,
        typer.Option(
            "--export-reasonix", help="Re-run `export reasonix` whenever the set of fresh lessons changes."
        ),
    ] = False,
    repo: RepoOption = None,
) -> None:
    """Mark lessons stale as their inputs change and capture sessions as they end, until Ctrl-C."""
    if idle_seconds <= 0 or debounce < 0:
        raise UsageError("--idle-seconds must be > 0 and --debounce >= 0")
    project = open_project(repo)
    options = reasonlessons.watch.daemon.WatchOptions(
        poll=poll, debounce=debounce, max_wait=max(2.0, debounce * 4), idle_seconds=idle_seconds
    )
    env, home = dict(os.environ), Path.home()
    capture = reasonlessons.watch.integrations.pipeline_capture(
        project, env=env, home=home, idle_seconds=idle_seconds
    )
    resync = (
        reasonlessons.watch.integrations.reasonix_export(project, env=env, home=home)
        if export_reasonix
        else None
    )
    daemon = reasonlessons.watch.daemon.Daemon(
        project, options=options, env=env, home=home, capture=capture, resync=resync
    )
    Signals(daemon.request_stop).install()
    daemon.run(_print_json if json else _print_human)


class Signals:
    """First SIGINT/SIGTERM: finish the batch in flight and exit 0. A second Ctrl-C exits at once."""

    def __init__(self, stop: Callable[[], None], *, exit: Callable[[int], object] = os._exit) -> None:
        self.stop = stop
        self.exit = exit
        self.interrupts = 0

    def install(self) -> None:
        signal.signal(signal.SIGINT, self)
        signal.signal(signal.SIGTERM, self)

    def __call__(self, signum: int, frame: object = None) -> None:
        if signum == signal.SIGINT:
            self.interrupts += 1
            if self.interrupts > 1:
                sys.stderr.write("reasonlessons: interrupted\n")
                sys.stderr.flush()
                self.exit(EXIT_INTERRUPTED)
                return
        self.stop()


def _print_json(event: dict[str, Any]) -> None:
    stamped = {**event, "time": dt.datetime.now(dt.UTC).isoformat(timespec="milliseconds")}
    sys.stdout.buffer.write(json_bytes(jsonio.dumps(stamped)) + b"\n")
    sys.stdout.flush()


def _print_human(event: dict[str, Any]) -> None:
    sys.stdout.write(f"{dt.datetime.now().strftime('%H:%M:%S')} {visible(human(event))}\n")
    sys.stdout.flush()


def human(event: dict[str, Any]) -> str:
    """One log line for a person."""
    kind = event.get("event")
    where = f"{event.get('name')} [{event.get('scope')}]"
    if kind == "ready":
        stale = event["stale"]
        names = f" ({', '.join(stale)})" if stale else ""
        return (
            f"watching {event['root']}: {event['lessons']} lesson(s), {len(stale)} stale{names}; "
            f"{event['watches']} watch(es), {event['mode']}; Ctrl-C to stop"
        )
    if kind == "stale":
        return f"stale  {where}  {event['input']}: {event['was']} → {event['now']}"
    if kind == "fresh":
        still = " (other inputs still drifted)" if event.get("status") == "stale" else ""
        return f"fresh  {where}  {event['input']} is back to its recorded value{still}"
    if kind == "captured":
        return f"captured candidate {event.get('name')} from {event.get('log')}: {event.get('path')}"
    if kind == "lessons":
        parts = [
            f"{sign}{item['name']}"
            for sign, key in (("+", "added"), ("-", "removed"), ("~", "changed"))
            for item in event[key]
        ]
        return f"lessons changed: {' '.join(parts)} ({event['count']} watched)"
    if kind == "invalid":
        return f"warning: {event['path']}: {event['message']}"
    if kind == "exported":
        return f"exported to {event['target']}: +{len(event['written'])} -{len(event['withdrawn'])}"
    if kind == "error":
        return f"error: {event['message']} (still watching)"
    if kind == "stopped":
        return "stopped"
    return str(jsonio.dumps(event).decode())
