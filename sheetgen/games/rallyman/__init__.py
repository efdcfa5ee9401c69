"""Rallyman GT and Rallyman DIRT: hex tracks driven with gear dice whose faces carry caution
symbols; three cautions lose control.

Modules: `ruleset` (the dice, dashboards, tables and house values of both variants, as data)
and `odds` (the exact odds of a plan of dice, flat out and one at a time).
"""
