"""The `--events` stream: what a command does, as it happens, one JSON object a line (docs/events.md).

`kinds` declares each event (a frozen dataclass; pure); `writer` is the file's side: the line each
becomes, written whole and at once. The run emits events through one `Observer` it is handed."""
