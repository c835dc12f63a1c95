"""Extract: observations to candidate drafts."""
