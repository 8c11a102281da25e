import unittest

from inventory.stock import Stock


class StockTest(unittest.TestCase):
    def test_add_and_total(self):
        stock = Stock()
        stock.add("apple", 3)
        stock.add("pear", 2)
        self.assertEqual(stock.total(), 5)

    def test_remove(self):
        stock = Stock()
        stock.add("apple", 3)
        stock.remove("apple", 2)
        self.assertEqual(stock.items["apple"], 1)

    def test_remove_everything(self):
        stock = Stock()
        stock.add("pear", 2)
        stock.remove("pear", 2)
        self.assertEqual(stock.total(), 0)

    def test_cannot_remove_more_than_stocked(self):
        stock = Stock()
        stock.add("apple", 1)
        with self.assertRaises(ValueError):
            stock.remove("apple", 2)


if __name__ == "__main__":
    unittest.main()
