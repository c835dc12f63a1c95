"""The lesson itself: its model, its file on disk, and where the scopes live."""
