"""Building blocks of `pipeline.replay`: settings, reason classification, the collecting pass,
generation/cause reconstruction, ownership, offsets and findings. Pure Python, no global state."""
