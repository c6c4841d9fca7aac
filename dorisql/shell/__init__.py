"""The `dorisql` command: flags and subcommands (`cli`), scripts and batch runs (`batch`, `script`,
`execute`), the interactive shell (`repl`, `completer`, `highlighting`, `progress`) and output
formats (`formatting`).

Layer: a front door over the engine façade, beside the server.
"""
