"""The argparse fast paths for per-turn commands."""
