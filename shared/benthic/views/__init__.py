"""The read side every service that answers views shares: what a read model is (readmodel.py), how it is written
(writes.py and its Lua scripts), read live, at a past version or from the archive (reads.py, archived.py), and pushed
to watchers as views or deltas (live.py, deltas.py). The projection service builds the read models; the command
service's play socket pushes them."""
