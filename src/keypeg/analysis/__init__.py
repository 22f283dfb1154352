"""Whole-strategy analysis: trees over every secret, statistics, tables of the literature, exports."""
