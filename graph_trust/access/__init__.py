"""Who may see what: the trust context (sensitivity, scopes, redaction), audited overrides,
layers and the selector among competing facts. Pure stages over search records."""
