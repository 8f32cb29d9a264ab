"""Bundled board layouts (TOML)."""
