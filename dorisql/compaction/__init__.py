"""Compaction: Doris's size-based policy (pure), and its execution on Delta tablets."""
