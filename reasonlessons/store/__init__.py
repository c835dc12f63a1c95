"""The store: one repository's lessons as a whole (docs/concepts.md).

Takes Locations; gives every lesson of every scope with its status, every mutation (add, promote,
reject, remove) under one lock, validation, and trust decisions, with counters in local state.

    project.py   Project: the store plus each lesson's status; the front door
    scopes.py    LessonStore: reading the scopes, and every mutation under a lock
    status.py    deprecated, superseded, expired, stale or active, in that precedence
    validate.py  every problem in every scope, reported together
    trust.py     what makes a lesson unfit to hand to an agent unreviewed, and trusting it anyway
    state.py     versioned JSON documents in the local state directory, rebuilt when damaged
"""
