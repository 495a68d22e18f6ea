"""The `account/*` methods: sign-in, sign-out, the account and its rate limits."""
