"""Code that two or more papers share. It knows neither ``icml25.lab`` nor any paper."""
