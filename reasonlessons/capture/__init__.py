"""Reading agent session logs: normalized events (`events`), one adapter per format (`adapters`),
and finding a repository's sessions (`discovery`)."""
