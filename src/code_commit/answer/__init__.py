"""The model's answer: caret blocks and applydir JSON parsed into edits, placeholders caught, the plan."""
