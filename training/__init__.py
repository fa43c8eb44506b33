"""Training scripts: Sentry gate (`python -m training.sentry`), data generators, Judge fine-tuning."""
