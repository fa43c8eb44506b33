"""Evaluation: stream format, closed-pool grading, LoCoMo data and official scoring."""
