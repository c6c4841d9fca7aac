"""Catalog-free checks of parsed statements with Doris's rules and messages, and CREATE TABLE's
defaults (`checks`); the rules of schema change (`schema_change_rules`). Pure.

Layer: above partitioning and bucketing; below syntax, whose `parse` runs these checks.
"""
