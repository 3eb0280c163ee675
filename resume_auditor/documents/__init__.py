"""Documents in: PDF and text loading, clean-up, identity slots."""
