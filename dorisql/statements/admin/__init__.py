"""ADMIN statements and accounts: ADMIN CHECK TABLE (`check_table`), ADMIN COMPACT TABLE, SHOW
TABLETS and SHOW PROC '/compactions' (`compact`), the trash pass and ADMIN CLEAN TRASH (`trash`),
users, grants and SHOW LOAD (`users`).
"""
