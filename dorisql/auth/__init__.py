"""Users and privileges as Doris has them, pure: password hashes (`passwords`), privilege names,
grants and the privileges each statement needs (`privileges`). Logging in and checking a session's
statements against the catalog's grants: dorisql.session.access.

Layer: above syntax; below catalog.
"""
