"""Users and privileges, as Doris has them: password hashes (`passwords`), privilege names, grants
and the privileges each statement needs (`privileges`), and the users as the catalog stores them
with login and the per-statement check (`users`). All pure but `users`, which reads the catalog.
"""
