"""Settings and secrets: defaults < config.toml < environment < flags, the API key, the project root, redaction."""
