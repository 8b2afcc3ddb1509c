"""processes: what a shell command can do (writes, runs other code, reaches the network), from tables per program."""
