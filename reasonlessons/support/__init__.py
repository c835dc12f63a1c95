"""Infrastructure every stage uses: atomic writes, JSON, hashing, file stamps, tokens, YAML, git."""
