"""Shared fixtures: runs go to a temporary folder, and matplotlib never opens a window."""

import matplotlib

matplotlib.use("Agg")
