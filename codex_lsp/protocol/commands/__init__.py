"""Commands run for the client: `command/exec*`, `thread/shellCommand`, background terminals."""
