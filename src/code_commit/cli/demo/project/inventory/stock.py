class Stock:
    """Counts of items in stock, by name."""

    def __init__(self):
        self.items = {}

    def add(self, name, count):
        if count <= 0:
            raise ValueError("count must be positive")
        self.items[name] = self.items.get(name, 0) + count

    def remove(self, name, count):
        have = self.items.get(name, 0)
        if count > have:
            raise ValueError(f"only {have} {name} in stock")
        self.items[name] = have + count

    def total(self):
        return sum(self.items.values())
