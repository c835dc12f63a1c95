"""Reduce: one session's events in, its observations out (docs/capture.md#observations).

Takes the normalized events of one session, one at a time; gives SessionObservations: fixes,
repeated failures, verifications, created files, writs and corrections, in bounded memory.

    reducer.py       the reducer: deterministic, offline, bounded
    observations.py  what it noticed, small and ready for the extractor
    pairing.py       when a later call fixes an earlier failure
    messages.py      lessons stated in words: `/lesson` writs and user corrections
"""
