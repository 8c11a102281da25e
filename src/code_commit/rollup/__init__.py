"""The rollup: which files the model reads, within the budget, framed."""
