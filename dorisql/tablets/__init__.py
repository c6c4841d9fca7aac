"""Stored rows, the one way to read, check and clean them: the table's physical columns and
folders (`tables`), reading with delete versions and the key model's merge (`read`, `merge`,
`deletes`), rowsets and commit versions (`rowsets`, `rowset_types`), the cheap storage checks a
statement makes (`consistency`), partition sizes (`partition_sizes`) and scan counts (`scans`).

Layer: above session and storage; below query and compaction, which read through it.
"""
