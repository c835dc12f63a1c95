"""The lesson itself: its model, its file on disk, and where the scopes live (docs/lesson-format.md).

Takes a repository root (and `$REASONIX_HOME`); gives `Locations`, and `Lesson`s read from and
written to their files byte for byte.

    model.py      Lesson: what each frontmatter key means, and checks that need no file system
    file.py       reading a lesson file carefully and writing it byte-stable (python-frontmatter)
    locations.py  the project root, the three scopes and the local state directory
"""
