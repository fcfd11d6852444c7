"""What users call: predict(), the CLI."""
