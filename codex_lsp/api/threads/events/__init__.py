"""The parts of a thread's event map (`codex_lsp.api.threads.event_map.ThreadEventMap`), one
responsibility each: what the map remembers (`state`), how it speaks (`notifier`), the items it
has open (`open_items`), the thread's status (`status`), and the families of engine events it
maps (`turns`, `messages`, `tools`, `requests`, `notices`, `review`, `history`), each handing its
handlers to the map's one dispatch table."""
