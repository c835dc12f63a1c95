"""Agent session logs as normalized events: one adapter per format, discovery, shell and edit parsing."""
