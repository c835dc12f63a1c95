"""The per-turn command lines, parsed without Typer: importing Typer costs several times a bare start.

Takes argv of the commands that run around every agent turn or session end; gives the same output
and exit code as their Typer twins in reasonlessons/cli/, from one option table per command.

    options.py  Option, the table type; the quick parser and the argparse parser built from a table
    recall.py   `recall`: before every agent turn
    stale.py    `stale`: before every agent turn; replays the last answer when nothing changed
    hook.py     `hook claude-code`: around every prompt and tool call; never fails the agent
    capture.py  `capture`: at every session end (hooks, watch)
"""
