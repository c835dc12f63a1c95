"""Infrastructure every stage uses, one module per concern (and per third-party library).

Takes bytes, paths and repositories; gives them back safely written, parsed, hashed or read, so no
other package imports orjson, xxhash, filelock, PyYAML or GitPython itself.

    atomic.py     atomic file writes, and the inter-process lock around store mutations (filelock)
    jsonio.py     JSON in and out (orjson)
    hashing.py    content hashes of repo facts (xxhash)
    stamp.py      a file's identity from stat(): the one stamp every cache compares, and racy timestamps
    globs.py      glob -> regex translation shared by fingerprint globs and recall's file triggers
    tokens.py     the tokenizers of keyword triggers, BM25 and the task classifier
    yamlread.py   YAML as PyYAML's safe loader reads it, faster for plain documents
    yamlblock.py  the simplest block YAML, read line by line: yamlread's first try
    gitrepo.py    read-only history of a repository (GitPython), for explaining drift
    gitcli.py     the same through the git command line
"""
