"""What keeps secrets and hostile text out of lessons: redaction, the secret scanner, linear-time patterns."""
