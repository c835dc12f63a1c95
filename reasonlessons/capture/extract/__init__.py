"""Extract: observations in, candidate lesson drafts out (docs/capture.md#drafts).

Takes one session's observations and what is known of the repository; gives CandidateDrafts with
name, description, body, fingerprint, triggers, evidence and outcome, for the gates to judge.

    heuristic.py     the offline extractor
    failures.py      drafts from failures: commands that cannot run here, refused arguments
    fingerprints.py  which repo facts a draft depends on
    context.py       where a session ran: the repository, its cwd, its facts
    draft.py         a candidate before it is written
    llm/             the optional LLM extractor, falling back to the heuristic one
"""
