"""The scopes as a whole: reading and mutating them, each lesson's status, local state, trust."""
